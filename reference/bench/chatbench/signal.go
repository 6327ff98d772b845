package main

import (
	"os"
	"os/signal"
	"syscall"
)

func notify(ch chan os.Signal) { signal.Notify(ch, os.Interrupt, syscall.SIGTERM) }
