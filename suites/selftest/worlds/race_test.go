//go:build race

package worlds

const raceEnabled = true
