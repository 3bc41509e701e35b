package conformance

// Cases returns the whole table. Every call builds fresh objects.
func Cases() []Case {
	var out []Case
	out = append(out, resourceCases()...)
	out = append(out, nodeCases()...)
	out = append(out, interPodCases()...)
	out = append(out, spreadCases()...)
	out = append(out, volumeCases()...)
	return out
}
