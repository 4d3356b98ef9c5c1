// Package plain is the generate step of the plain reference plugin: it
// concatenates the YAML files of the application folder, in name order.
package plain

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ErrNoFiles is Generate's error for a folder without YAML files.
var ErrNoFiles = errors.New("no YAML files")

// Generate writes every *.yaml and *.yml file of dir to w as one stream of
// YAML documents. No file is an error: an empty output would make Argo CD
// prune every resource of the application (argo-cd#15339).
func Generate(dir string, w io.Writer) error {
	var files []string
	for _, pattern := range []string{"*.yaml", "*.yml"} {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return err
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) == 0 {
		return fmt.Errorf("%w in %s", ErrNoFiles, dir)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if !bytes.HasPrefix(data, []byte("---")) {
			io.WriteString(w, "---\n")
		}
		w.Write(data)
		if !strings.HasSuffix(string(data), "\n") {
			io.WriteString(w, "\n")
		}
	}
	return nil
}
