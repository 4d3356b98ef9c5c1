package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// cliReference is docs/cli.md: every command's help, as --help prints it,
// generated from the command tree (TestCLIReferenceIsCurrent keeps it so).
func cliReference(root *cobra.Command) string {
	var b strings.Builder
	b.WriteString("# Command reference\n\n<!-- Generated from the commands' --help by `make docs`; do not edit by hand. -->\n\n")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", c.CommandPath(), c.Short)
		if long := strings.TrimSpace(c.Long); long != "" {
			b.WriteString("```text\n" + long + "\n```\n\n")
		}
		if c.Runnable() {
			fmt.Fprintf(&b, "Usage: `%s`\n\n", c.UseLine())
		}
		if flags := c.LocalFlags().FlagUsages(); flags != "" {
			b.WriteString("```text\n" + flags + "```\n\n")
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return b.String()
}
