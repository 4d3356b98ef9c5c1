// Command cmp-plain is the plain reference plugin's program.
package main

import (
	"fmt"
	"os"

	"github.com/cmp-conformance/cmp-conformance/plugins/plain"
)

func main() {
	if len(os.Args) != 2 || os.Args[1] != "generate" {
		fmt.Fprintln(os.Stderr, "usage: cmp-plain generate   (run by argocd-cmp-server in the application folder)")
		os.Exit(2)
	}
	if err := plain.Generate(".", os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "cmp-plain:", err)
		os.Exit(1)
	}
}
