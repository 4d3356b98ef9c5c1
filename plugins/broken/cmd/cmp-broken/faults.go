package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/cmp-conformance/cmp-conformance/plugins/faulty"
	"github.com/cmp-conformance/cmp-conformance/plugins/plain"
)

// faultModes are broken variants of the faulty-generate plugin for the FAULT
// checks.
func faultModes() map[string]func() error {
	return map[string]func() error{
		// A wrapper script that hides its tool's faults: whatever goes wrong,
		// it prints what it has (nothing, a part, the parseable part, what
		// fits) and exits 0, so Argo CD sees a smaller manifest list and no
		// error, and a sync with prune deletes the rest.
		"generate-hiding-faults": func() error {
			fault, err := faulty.ReadFault(".")
			if err != nil {
				return err
			}
			var out bytes.Buffer
			if err := plain.Generate(".", &out); err != nil {
				return err
			}
			switch fault {
			case "":
				_, err = os.Stdout.Write(out.Bytes())
			case faulty.FaultHang:
				// Gives up on the hung tool at once and prints nothing.
			default:
				// Prints the first resource: what came out before the crash,
				// what parsed, what fit.
				_, err = fmt.Print(faulty.FirstDocument(out.String()))
			}
			return err
		},
	}
}
