//go:build linux || darwin

package main

import (
	"os"
	"testing"
)

func TestOutputGoneTellsAPipeNothingReads(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if outputGone(int(w.Fd())) {
		t.Fatal("a pipe with its reader open was taken for gone")
	}
	r.Close()
	if !outputGone(int(w.Fd())) {
		t.Fatal("a pipe whose reader closed was not taken for gone")
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if outputGone(int(f.Fd())) {
		t.Fatal("a file was taken for gone")
	}
}
