// Command cmp-faulty is the program of the plugin that misbehaves on request.
package main

import (
	"fmt"
	"os"

	"github.com/cmp-conformance/cmp-conformance/plugins/faulty"
)

func main() {
	if len(os.Args) != 2 || os.Args[1] != "parameters" {
		fmt.Fprintln(os.Stderr, "usage: cmp-faulty parameters")
		os.Exit(2)
	}
	if err := faulty.Announce(faulty.Mode(os.Getenv("ARGOCD_APP_PARAMETERS")), os.Stdout, os.Stderr); err != nil {
		os.Exit(1)
	}
}
