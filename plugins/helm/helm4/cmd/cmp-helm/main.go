//go:build helm4

// Command cmp-helm, Helm 4 build: see package helmcmp. Build it from this
// module with -tags helm4.
package main

import (
	"os"

	"github.com/cmp-conformance/cmp-conformance/plugins/helm/helm4"
	"github.com/cmp-conformance/cmp-conformance/plugins/helm/helmcmp"
)

func main() {
	os.Exit(helmcmp.Main(helm4.New(), os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}
