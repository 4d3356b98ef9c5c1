//go:build helm4

// Command cmp-helm-broken, Helm 4 build: see package broken. Build it from
// this module with -tags helm4.
package main

import (
	"os"

	"github.com/cmp-conformance/cmp-conformance/plugins/helm/helm4"
	"github.com/cmp-conformance/cmp-conformance/plugins/helm/helmcmp/broken"
)

func main() { os.Exit(broken.Main(helm4.New(), os.Args[1:])) }
