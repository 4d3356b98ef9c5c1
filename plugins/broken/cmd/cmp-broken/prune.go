package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/plugins/plain"
)

// pruneModes are broken variants of the plain plugin for the PRUNE checks.
func pruneModes() map[string]func() error {
	return map[string]func() error{
		// Every resource opts out of deletion with its application.
		"generate-undeletable": func() error { return generateWithSyncOption("Delete=false") },
		// Every resource opts out of pruning.
		"generate-unprunable": func() error { return generateWithSyncOption("Prune=false") },
		// Prints the same manifests whatever its source holds: a plugin that
		// renders from somewhere else than the application folder.
		"generate-pinned": func() error {
			_, err := fmt.Print(pinnedManifests)
			return err
		},
		// A failing pipeline without pipefail: the error is swallowed and the
		// plugin prints nothing, so Argo CD sees an empty manifest list.
		"generate-swallowing-errors": func() error {
			var out bytes.Buffer
			if err := plain.Generate(".", &out); err != nil {
				return nil
			}
			_, err := os.Stdout.Write(out.Bytes())
			return err
		},
	}
}

func generateWithSyncOption(option string) error {
	var out bytes.Buffer
	if err := plain.Generate(".", &out); err != nil {
		return err
	}
	for _, doc := range strings.Split(out.String(), "---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		obj := map[string]any{}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			return err
		}
		meta, _ := obj["metadata"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
			obj["metadata"] = meta
		}
		ann, _ := meta["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
			meta["annotations"] = ann
		}
		ann["argocd.argoproj.io/sync-options"] = option
		data, err := yaml.Marshal(obj)
		if err != nil {
			return err
		}
		fmt.Printf("---\n%s", data)
	}
	return nil
}

// pinnedManifests is prune-app as first committed, printed whatever the source says.
const pinnedManifests = `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: prune-drop
data:
  role: removed from the source by the check
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: prune-keep
data:
  role: stays in the source
`
