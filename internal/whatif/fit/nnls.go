// Package fit estimates per-category CPU costs of a kube-apiserver from a
// recorded trace: per-category request rates and the CPU measured at the
// same times. The costs solve a non-negative least squares problem
// (Lawson and Hanson's active-set method), and the fit's error is
// reported. WriteCosts writes them in the custom metrics provider's cost
// file format (rules of verb, scope, resource and cost; first match wins;
// a default).
package fit

import (
	"errors"
	"math"
)

// ErrSingular is returned when the columns of the problem are linearly
// dependent so the costs are not determined.
var ErrSingular = errors.New("the columns are linearly dependent (two categories always move together, or one is always zero)")

// NNLS returns x ≥ 0 minimising |A·x − b|, for A with rows of equal
// length (the samples) and b one value per row. It follows Lawson and
// Hanson's active-set algorithm: variables enter the passive set by the
// largest gradient and leave it when the unconstrained solution on the
// set would make them negative.
func NNLS(a [][]float64, b []float64) ([]float64, error) {
	if len(a) == 0 || len(a) != len(b) {
		return nil, errors.New("want one value of b per row of A, and at least one row")
	}
	n := len(a[0])
	x := make([]float64, n)
	passive := make([]bool, n)
	const tol = 1e-10
	for iter := 0; iter < 30*n+30; iter++ {
		w := gradient(a, b, x)
		t, best := -1, tol*scale(a, b)
		for j := range n {
			if !passive[j] && w[j] > best {
				t, best = j, w[j]
			}
		}
		if t < 0 {
			return x, nil
		}
		passive[t] = true
		for {
			s, err := solvePassive(a, b, passive)
			if err != nil {
				return nil, err
			}
			alpha, blocked := 1.0, false
			for j := range n {
				if passive[j] && s[j] <= tol && x[j]-s[j] > 0 {
					alpha, blocked = math.Min(alpha, x[j]/(x[j]-s[j])), true
				}
			}
			if !blocked {
				copy(x, s)
				break
			}
			for j := range n {
				x[j] += alpha * (s[j] - x[j])
				if passive[j] && x[j] <= tol {
					passive[j], x[j] = false, 0
				}
			}
		}
	}
	return x, errors.New("NNLS did not converge")
}

// gradient is Aᵀ(b − A·x).
func gradient(a [][]float64, b, x []float64) []float64 {
	w := make([]float64, len(x))
	for i, row := range a {
		r := b[i]
		for j, v := range row {
			r -= v * x[j]
		}
		for j, v := range row {
			w[j] += v * r
		}
	}
	return w
}

// scale is a magnitude of the problem, for the stopping tolerance.
func scale(a [][]float64, b []float64) float64 {
	s := 0.0
	for i, row := range a {
		for _, v := range row {
			s = math.Max(s, math.Abs(v*b[i]))
		}
	}
	return math.Max(s, 1e-300)
}

// solvePassive solves the unconstrained least squares problem on the
// passive columns (normal equations, Gaussian elimination with partial
// pivoting); the other entries are 0.
func solvePassive(a [][]float64, b []float64, passive []bool) ([]float64, error) {
	var idx []int
	for j, p := range passive {
		if p {
			idx = append(idx, j)
		}
	}
	k := len(idx)
	m := make([][]float64, k)
	for r := range k {
		m[r] = make([]float64, k+1)
	}
	for i, row := range a {
		for r, jr := range idx {
			for c, jc := range idx {
				m[r][c] += row[jr] * row[jc]
			}
			m[r][k] += row[jr] * b[i]
		}
	}
	sol, err := gauss(m)
	if err != nil {
		return nil, err
	}
	x := make([]float64, len(passive))
	for r, j := range idx {
		x[j] = sol[r]
	}
	return x, nil
}

// gauss solves the augmented system m (k rows of k+1 values).
func gauss(m [][]float64) ([]float64, error) {
	k := len(m)
	norm := 0.0
	for _, row := range m {
		for _, v := range row[:k] {
			norm = math.Max(norm, math.Abs(v))
		}
	}
	for col := range k {
		p := col
		for r := col + 1; r < k; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[p][col]) {
				p = r
			}
		}
		if math.Abs(m[p][col]) <= 1e-12*norm {
			return nil, ErrSingular
		}
		m[col], m[p] = m[p], m[col]
		for r := col + 1; r < k; r++ {
			f := m[r][col] / m[col][col]
			for c := col; c <= k; c++ {
				m[r][c] -= f * m[col][c]
			}
		}
	}
	x := make([]float64, k)
	for r := k - 1; r >= 0; r-- {
		s := m[r][k]
		for c := r + 1; c < k; c++ {
			s -= m[r][c] * x[c]
		}
		x[r] = s / m[r][r]
	}
	return x, nil
}
