package conformance

import (
	"encoding/json"
	"io/fs"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/fixtures/gitserver"
	"github.com/cmp-conformance/cmp-conformance/fixtures/kube"
)

// comparableYAML is a golden file's documents as comparable makes
// generated manifests: JSON objects, re-encoded, tracking metadata dropped.
func comparableYAML(data []byte) ([]string, error) {
	objs, err := kube.Decode(data)
	if err != nil {
		return nil, err
	}
	var docs []string
	for _, o := range objs {
		b, err := json.Marshal(o.Object)
		if err != nil {
			return nil, err
		}
		docs = append(docs, string(b))
	}
	return comparable(docs), nil
}

// difference is what a holds and b does not, counting duplicates.
func difference(a, b []string) []string {
	left := map[string]int{}
	for _, x := range b {
		left[x]++
	}
	var out []string
	for _, x := range a {
		if left[x] > 0 {
			left[x]--
			continue
		}
		out = append(out, x)
	}
	return out
}

// kindCounts counts generated manifests by kind ("" for what is no object).
func kindCounts(manifests []string) map[string]int {
	out := map[string]int{}
	for _, m := range manifests {
		var obj struct {
			Kind string `json:"kind"`
		}
		_ = json.Unmarshal([]byte(m), &obj)
		out[obj.Kind]++
	}
	return out
}

// replaceWith is the commit that turns a repository holding the folder from
// of cert into one holding the folder to: every top-level entry removed,
// every file of to written.
func replaceWith(cert *Certification, from, to string) (gitserver.Change, error) {
	change := gitserver.Change{Message: "replace the sample with the failing one", Files: map[string][]byte{}}
	entries, err := fs.ReadDir(cert.FS, cert.SourcePath(from))
	if err != nil {
		return change, err
	}
	for _, e := range entries {
		change.Delete = append(change.Delete, e.Name())
	}
	root := cert.SourcePath(to)
	err = fs.WalkDir(cert.FS, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(cert.FS, p)
		if err != nil {
			return err
		}
		rel := p
		if root != "." {
			rel = strings.TrimPrefix(p, root+"/")
		}
		change.Files[rel] = data
		return nil
	})
	return change, err
}
