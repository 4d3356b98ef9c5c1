// Command cmp-contract is the program of the contract reference plugins
// (plugins/contract*, plugins/discover-*, plugins/named-only).
package main

import (
	"fmt"
	"os"

	"github.com/cmp-conformance/cmp-conformance/plugins/contract"
)

const usage = `usage: cmp-contract find MARKER | init | generate [PLUGIN]
  run by argocd-cmp-server in the application folder:
  find      discovery: matches when the file MARKER is here (its content may say
            silent, fail, or hang RECORD) or ` + contract.FindEnv + `=MARKER
  init      writes ` + contract.InitFile + `; fails when ` + contract.InitFailFile + ` is here
  generate  the folder's YAML files and a record of the working copy, naming PLUGIN`

func main() {
	args := os.Args[1:]
	arg := func() string {
		if len(args) == 2 {
			return args[1]
		}
		return ""
	}
	var err error
	switch {
	case len(args) == 2 && args[0] == "find":
		err = contract.FindOrHang(".", arg(), os.Getenv, os.Stdout, false)
	case len(args) == 2 && args[0] == contract.HangChildArg:
		contract.HangChild(arg())
	case len(args) == 1 && args[0] == "init":
		err = contract.Init(".", os.Stdout)
	case len(args) >= 1 && len(args) <= 2 && args[0] == "generate":
		err = contract.Generate(".", arg(), os.Getenv, os.Stdout)
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmp-contract:", err)
		os.Exit(1)
	}
}
