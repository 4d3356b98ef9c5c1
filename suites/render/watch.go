package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"sigs.k8s.io/yaml"
)

// Fingerprint is a digest of what is at paths (files and folders, walked):
// names, modes, sizes and modification times. It changes when a file is
// written, added, removed or renamed; a path that does not exist counts as
// such.
func Fingerprint(paths ...string) (string, error) {
	h := sha256.New()
	for _, root := range paths {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					fmt.Fprintf(h, "%s missing\n", p)
					return nil
				}
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s %s %d %d\n", p, info.Mode(), info.Size(), info.ModTime().UnixNano())
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Diff says what changed from one render's manifests to the next's, object
// by object (kind, namespace, name): the objects added and removed, and for
// each changed one a unified diff of its YAML. "" when nothing changed.
func Diff(before, after []string) (string, error) {
	old, err := byObject(before)
	if err != nil {
		return "", err
	}
	cur, err := byObject(after)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	keys := map[string]bool{}
	for k := range old {
		keys[k] = true
	}
	for k := range cur {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		o, was := old[k]
		n, is := cur[k]
		switch {
		case !was:
			fmt.Fprintf(&b, "+ %s (added)\n", k)
		case !is:
			fmt.Fprintf(&b, "- %s (removed)\n", k)
		case o != n:
			d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: difflib.SplitLines(o), B: difflib.SplitLines(n), FromFile: k, ToFile: k, Context: 2})
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "~ %s (changed)\n%s", k, d)
		}
	}
	return b.String(), nil
}

// byObject keys each manifest's YAML by kind, namespace and name.
func byObject(manifests []string) (map[string]string, error) {
	out := map[string]string{}
	for i, m := range manifests {
		var meta struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name, Namespace string
			} `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(m), &meta); err != nil {
			return nil, fmt.Errorf("manifest %d: %w", i, err)
		}
		y, err := yaml.JSONToYAML([]byte(m))
		if err != nil {
			return nil, err
		}
		key := meta.Kind + " " + meta.Metadata.Name
		if meta.Metadata.Namespace != "" {
			key = meta.Kind + " " + meta.Metadata.Namespace + "/" + meta.Metadata.Name
		}
		if _, dup := out[key]; dup {
			key = fmt.Sprintf("%s (#%d)", key, i+1)
		}
		out[key] = string(y)
	}
	return out, nil
}
