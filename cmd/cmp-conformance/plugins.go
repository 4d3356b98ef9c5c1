package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
)

const modulePath = "github.com/cmp-conformance/cmp-conformance"

// repoRoot finds this project's checkout above the working directory: the
// reference plugins and witnesses are built from it.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(data, []byte("module "+modulePath+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside a cmp-conformance checkout: the reference plugins are built from it (run from the repository, or give every role with --plugin ROLE=DIR and their programs with --plugin-path)")
		}
		dir = parent
	}
}
