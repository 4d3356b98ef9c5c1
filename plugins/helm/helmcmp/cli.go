package helmcmp

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

const usage = `cmp-helm renders a Helm chart as Argo CD's native Helm support does, for use
as an Argo CD Config Management Plugin. It runs in the application folder.

Usage:
  cmp-helm generate     print the rendered manifests (helm template) on stdout
  cmp-helm parameters   print the parameter announcement (JSON) on stdout
  cmp-helm version      print the Helm SDK version compiled in
  cmp-helm --help       print this help

Environment (set by the Argo CD CMP server):
  ARGOCD_APP_NAME        release name (the part after "<namespace>_", if any)
  ARGOCD_APP_NAMESPACE   --namespace
  KUBE_VERSION           --kube-version
  KUBE_API_VERSIONS      --api-versions, comma separated
  ARGOCD_APP_SOURCE_PATH locates the repository root for value file paths
  ARGOCD_APP_PARAMETERS  the parameters below, as JSON

Parameters:
  values-files (array)           --values, relative to the app folder
  values (string)                inline YAML, after the value files
  helm-parameters (map)          --set (typed: true, 1, null become YAML types)
  helm-string-parameters (map)   --set-string
  helm-file-parameters (map)     --set-file, name to file path
  release-name, namespace, kube-version (string), api-versions (array)
  skip-crds, skip-tests, skip-schema-validation, ignore-missing-value-files ("true"/"false")
`

// Main runs the command line with r as the Helm SDK and returns the exit
// code. Errors are printed as the helm CLI prints them: "Error: <message>".
func Main(r Renderer, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) != 1 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	case "version":
		fmt.Fprintf(stdout, "helm %s\n", r.Version())
		return 0
	case "generate":
		err = withAppDir(func(dir string) error { return Generate(r, dir, getenv, stdout, stderr) })
	case "parameters":
		err = withAppDir(func(dir string) error {
			list, err := Announce(r, dir, getenv)
			if err != nil {
				return err
			}
			out, err := json.Marshal(list)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(stdout, "%s\n", out)
			return err
		})
	default:
		fmt.Fprintf(stderr, "Error: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "Error: %s\n", err)
		return 1
	}
	return 0
}

func withAppDir(run func(dir string) error) error {
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	return run(dir)
}
