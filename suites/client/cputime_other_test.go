//go:build !unix

package client_test

// processCPU is not measured here; benchmarks report 0.
func processCPU() int64 { return 0 }
