//go:build unix

package main

import (
	"syscall"
	"testing"
	"time"
)

// interrupted's channel closes on SIGTERM (as `timeout` sends), which the
// bench then treats as the end of its sweep rather than of the process.
func TestInterruptedClosesOnSignal(t *testing.T) {
	stop, release := interrupted()
	defer release()
	select {
	case <-stop:
		t.Fatal("closed before any signal")
	default:
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stop:
	case <-time.After(10 * time.Second): // a guard against hanging, not a timing
		t.Fatal("SIGTERM did not close the channel")
	}
}
