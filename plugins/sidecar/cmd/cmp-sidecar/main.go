// Command cmp-sidecar is the reference parameterized plugin's program.
package main

import (
	"fmt"
	"os"

	"github.com/cmp-conformance/cmp-conformance/plugins/sidecar"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 2 && os.Args[1] == "generate":
		err = sidecar.Generate(".", os.Environ(), os.Stdout)
	case len(os.Args) == 2 && os.Args[1] == "parameters":
		err = sidecar.Announce(".", os.Environ(), os.Stdout)
	default:
		fmt.Fprintln(os.Stderr, "usage: cmp-sidecar generate|parameters   (run by argocd-cmp-server in the application folder)")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmp-sidecar:", err)
		os.Exit(1)
	}
}
