package estimator

// RoundUpForTest exposes roundUp to the external tests.
var RoundUpForTest = roundUp
