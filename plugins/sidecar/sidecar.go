// Package sidecar is the reference parameterized plugin's program: the
// dynamic announcement and the generate step. It reads parameters from the
// environment as data and never runs a shell.
package sidecar

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/plugins/plain"
	"github.com/cmp-conformance/cmp-conformance/plugins/record"
)

// ReceivedConfigMap is the ConfigMap generate adds to the application: what
// the plugin received, for checks to read back from the cluster.
const ReceivedConfigMap = "cmp-sidecar-received"

// KeyEnviron is the key of ReceivedConfigMap's binaryData: a JSON object,
// variable name -> value, of every PARAM_*, ARGOCD_ENV_*, ARGOCD_APP_* (so
// also the raw ARGOCD_APP_PARAMETERS) and KUBE_* variable.
//
// binaryData, because a manifest string holding DEL or C1 control characters
// cannot pass Argo CD at all: gitops-engine's SplitYAML converts YAML to JSON
// and parses that JSON as YAML again, and Go's JSON leaves those characters
// raw, which the YAML reader rejects. Base64 keeps the manifest ASCII. Encoded
// once only: with client-side apply Argo CD stores the object again in the
// last-applied annotation, limited to 256 KiB.
const KeyEnviron = "environ.json"

// Captured says which variables the plugin reports: the parameters and the
// build environment, not the sidecar's own environment.
func Captured(name string) bool {
	for _, p := range []string{"PARAM_", "ARGOCD_ENV_", "ARGOCD_APP_", "KUBE_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Environ parses KEY=VALUE entries (the value may hold '=' and newlines).
func Environ(entries []string) map[string]string {
	out := map[string]string{}
	for _, kv := range entries {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}

// Generate writes the application's YAML files, then the received ConfigMap.
func Generate(dir string, environ []string, w io.Writer) error {
	if err := plain.Generate(dir, w); err != nil {
		return err
	}
	captured := map[string]string{}
	for k, v := range Environ(environ) {
		if Captured(k) {
			captured[k] = v
		}
	}
	envJSON, err := json.Marshal(captured)
	if err != nil {
		return err
	}
	return record.Write(w, ReceivedConfigMap, KeyEnviron, envJSON)
}

// Parameter is one entry of ARGOCD_APP_PARAMETERS.
type Parameter struct {
	Name   string            `json:"name"`
	String *string           `json:"string,omitempty"`
	Array  []string          `json:"array,omitempty"`
	Map    map[string]string `json:"map,omitempty"`
}

// Announcement is one parameter announcement (proposal schema).
type Announcement struct {
	Name           string            `json:"name,omitempty"`
	Title          string            `json:"title,omitempty"`
	Tooltip        string            `json:"tooltip,omitempty"`
	Required       bool              `json:"required,omitempty"`
	ItemType       string            `json:"itemType,omitempty"`
	CollectionType string            `json:"collectionType,omitempty"`
	String         string            `json:"string,omitempty"`
	Array          []string          `json:"array,omitempty"`
	Map            map[string]string `json:"map,omitempty"`
}

// IgnoreParameter is the proposal's example of a parameter that configures
// announcement itself: components named in it are not announced.
const IgnoreParameter = "ignore-components"

// EchoAnnouncement carries, as its string, the ARGOCD_APP_PARAMETERS the
// dynamic command received: proof that it gets the app's current parameters.
const EchoAnnouncement = "dynamic-received-parameters"

// Announce prints the dynamic announcements: one map parameter per folder
// under components/ (its params.yaml as defaults) unless ignored, and the echo.
func Announce(dir string, environ []string, w io.Writer) error {
	env := Environ(environ)
	var params []Parameter
	if raw := env["ARGOCD_APP_PARAMETERS"]; raw != "" {
		if err := json.Unmarshal([]byte(raw), &params); err != nil {
			return fmt.Errorf("ARGOCD_APP_PARAMETERS is not a parameter list: %w", err)
		}
	}
	var ignored []string
	for _, p := range params {
		if p.Name == IgnoreParameter {
			ignored = append(ignored, p.Array...)
		}
	}
	out := []Announcement{}
	comps, _ := filepath.Glob(filepath.Join(dir, "components", "*", "params.yaml"))
	sort.Strings(comps)
	for _, f := range comps {
		name := filepath.Base(filepath.Dir(f))
		if slices.Contains(ignored, name) {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		defaults := map[string]string{}
		if err := yaml.Unmarshal(data, &defaults); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, Announcement{Name: name + "-values", Title: strings.ToUpper(name) + " VALUES",
			Tooltip: "Values of component " + name, CollectionType: "map", Map: defaults})
	}
	out = append(out, Announcement{Name: EchoAnnouncement, Title: "RECEIVED PARAMETERS",
		Tooltip: "ARGOCD_APP_PARAMETERS as the dynamic command received it", String: env["ARGOCD_APP_PARAMETERS"]})
	return json.NewEncoder(w).Encode(out)
}
