//go:build !helm4

// Command cmp-helm-broken is the Helm 3 build of the HELM witnesses' plugin
// (package broken); helm4/cmd/cmp-helm-broken is the Helm 4 build.
package main

import (
	"os"

	"github.com/cmp-conformance/cmp-conformance/plugins/helm/helmcmp"
	"github.com/cmp-conformance/cmp-conformance/plugins/helm/helmcmp/broken"
)

func main() { os.Exit(broken.Main(helmcmp.Helm3(), os.Args[1:])) }
