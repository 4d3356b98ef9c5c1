// Package broken is cmp-helm with one fault, for the witnesses of the HELM
// checks (plugins/broken/helm-*), for either Helm build:
//
//	cmp-helm-broken set-string generate     every helm-parameter goes to --set-string: "3" stays a string
//	cmp-helm-broken swallow-errors generate a render error prints nothing and exits 0
//	cmp-helm-broken undotted parameters     announces list items as a.0.b, not native's a[0].b
//	cmp-helm-broken shell generate          passes each helm-parameter value through sh, as a script would
//	cmp-helm-broken stale generate          renders once per application and then repeats itself
package broken

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/plugins/helm/helmcmp"
)

// Main is the command: args are os.Args[1:], r the Helm build.
func Main(r helmcmp.Renderer, args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: cmp-helm-broken set-string|swallow-errors|undotted|shell|stale generate|parameters")
		return 2
	}
	fault, cmd := args[0], args[1]
	getenv := os.Getenv
	var out, errOut bytes.Buffer
	switch fault {
	case "set-string":
		getenv = withParameters(func(p map[string]any) {
			if v, ok := p[helmcmp.ParamHelmParameters]; ok {
				delete(p, helmcmp.ParamHelmParameters)
				p[helmcmp.ParamStringParams] = v
			}
		})
	case "shell":
		getenv = withParameters(func(p map[string]any) {
			m, _ := p[helmcmp.ParamHelmParameters].(map[string]any)
			for k, v := range m {
				// The classic mistake: the value is spliced into a command line.
				got, _ := exec.Command("sh", "-c", fmt.Sprintf(`printf '%%s' "%v"`, v)).Output()
				m[k] = string(got)
			}
		})
	case "stale":
		cache := filepath.Join(os.TempDir(), "cmp-helm-broken-"+os.Getenv("ARGOCD_APP_NAME"))
		if data, err := os.ReadFile(cache); err == nil && cmd == "generate" {
			os.Stdout.Write(data)
			return 0
		}
		code := helmcmp.Main(r, []string{cmd}, &out, os.Stderr, getenv)
		if code == 0 && cmd == "generate" {
			_ = os.WriteFile(cache, out.Bytes(), 0o600)
		}
		os.Stdout.Write(out.Bytes())
		return code
	}
	code := helmcmp.Main(r, []string{cmd}, &out, &errOut, getenv)
	switch {
	case fault == "swallow-errors" && code != 0:
		return 0 // nothing printed, no error
	case fault == "undotted" && cmd == "parameters" && code == 0:
		var anns []map[string]any
		if err := json.Unmarshal(out.Bytes(), &anns); err == nil {
			for _, a := range anns {
				if m, ok := a["map"].(map[string]any); ok {
					undotted := map[string]any{}
					for k, v := range m {
						undotted[strings.NewReplacer("[", ".", "]", "").Replace(k)] = v
					}
					a["map"] = undotted
				}
			}
			data, _ := json.Marshal(anns)
			out.Reset()
			out.Write(append(data, '\n'))
		}
	}
	os.Stdout.Write(out.Bytes())
	os.Stderr.Write(errOut.Bytes())
	return code
}

// withParameters returns a getenv whose ARGOCD_APP_PARAMETERS went through
// edit, as a map from parameter name to its value (string, array or map).
func withParameters(edit func(map[string]any)) func(string) string {
	return func(key string) string {
		v := os.Getenv(key)
		if key != "ARGOCD_APP_PARAMETERS" {
			return v
		}
		var list []map[string]any
		if json.Unmarshal([]byte(v), &list) != nil {
			return v
		}
		byName := map[string]any{}
		for _, p := range list {
			name, _ := p["name"].(string)
			for _, kind := range []string{"string", "array", "map"} {
				if x, ok := p[kind]; ok {
					byName[name] = x
				}
			}
		}
		edit(byName)
		var outList []map[string]any
		for name, x := range byName {
			kind := "string"
			switch x.(type) {
			case []any:
				kind = "array"
			case map[string]any:
				kind = "map"
			}
			outList = append(outList, map[string]any{"name": name, kind: x})
		}
		data, _ := json.Marshal(outList)
		return string(data)
	}
}
