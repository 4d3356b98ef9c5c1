//go:build !helm4

// Command cmp-helm is the Helm 3 build of the Argo CD Config Management
// Plugin that renders charts like Argo CD's native Helm support. The Helm 4
// build is helm4/cmd/cmp-helm. See package helmcmp.
package main

import (
	"os"

	"github.com/cmp-conformance/cmp-conformance/plugins/helm/helmcmp"
)

func main() {
	os.Exit(helmcmp.Main(helmcmp.Helm3(), os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}
