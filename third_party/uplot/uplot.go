// Package uplot embeds uPlot (https://github.com/leeoniya/uPlot, MIT, see
// LICENSE), the charting library of the simulate report. The files are
// copied unchanged from the npm package named in VERSION;
// hack/update-uplot.sh re-fetches them and checks their checksums.
package uplot

import _ "embed"

// JS is uPlot's minified browser build (dist/uPlot.iife.min.js), which
// defines the global uPlot.
//
//go:embed uPlot.iife.min.js
var JS string

// CSS is uPlot's stylesheet (dist/uPlot.min.css).
//
//go:embed uPlot.min.css
var CSS string
