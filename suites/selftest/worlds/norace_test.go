//go:build !race

package worlds

const raceEnabled = false
