// Command cmp-broken is the program behind the broken witnesses: each
// subcommand violates one rule on purpose.
package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/plugins/plain"
)

func main() {
	if len(os.Args) >= 2 {
		if mode, ok := wrapperModes()[os.Args[1]]; ok {
			err := execWrapped(mode, os.Args[2:]) // returns only on failure
			fmt.Fprintln(os.Stderr, "cmp-broken:", err)
			os.Exit(1)
		}
	}
	if len(os.Args) == 3 {
		if mode, ok := contractModes()[os.Args[1]]; ok {
			if err := mode(os.Args[2]); err != nil {
				fmt.Fprintln(os.Stderr, "cmp-broken:", err)
				os.Exit(1)
			}
			return
		}
	}
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: cmp-broken MODE [ARG] (see plugins/broken/*/plugin.yaml)")
		os.Exit(2)
	}
	modes := sidecarModes()
	for name, f := range pruneModes() {
		modes[name] = f
	}
	for name, f := range faultModes() {
		modes[name] = f
	}
	for name, f := range upgradeModes() {
		modes[name] = f
	}
	for name, f := range subjectModes() {
		modes[name] = f
	}
	modes["generate-out-of-band"] = generateOutOfBand
	modes["generate-scanning-lines"] = generateScanningLines
	if mode, ok := modes[os.Args[1]]; ok {
		if err := mode(); err != nil {
			fmt.Fprintln(os.Stderr, "cmp-broken:", err)
			os.Exit(1)
		}
		return
	}
	switch os.Args[1] {
	case "dynamic-nameless":
		// Whatever it is asked, it announces one parameter without a name.
		fmt.Println(`[{"title":"NO NAME","string":"x"}]`)
	case "dynamic-silent":
		// Whatever it is asked, it announces nothing and never fails: the
		// faults a user should see are swallowed.
		fmt.Println("[]")
	case "drop-after-first":
		// Generates like the plain plugin, then drops every resource but the first.
		var out bytes.Buffer
		if err := plain.Generate(".", &out); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		docs := strings.Split(out.String(), "---\n")
		for _, d := range docs {
			if strings.TrimSpace(d) != "" {
				fmt.Print("---\n" + d)
				return
			}
		}
	case "never-matches":
		// A discovery command that never matches: Argo CD falls back to its
		// own directory type, so the plugin never generates anything.
		os.Exit(1)
	default:
		fmt.Fprintln(os.Stderr, "cmp-broken: unknown mode", os.Args[1])
		os.Exit(2)
	}
}
