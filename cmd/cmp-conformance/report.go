package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

func reportCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Compare and validate conformance reports",
		Long: `Work with the report.json a run writes (a run directory works too).

  cmp-conformance report diff base/report.json new/report.json
  cmp-conformance report diff --format json BASE NEW > diff.json
  cmp-conformance report merge --output merged a/report.json b/report.json
  cmp-conformance report validate _output/reports/latest
  cmp-conformance report expect _output/reports/latest --level "Not Conformant" --failed PLUG-004

Exit status: 0 fine, 1 a regression (diff) or an invalid report (validate),
2 bad input (a file that is not a report of this version, a truncated file,
reports of different profiles).`,
	}
	cmd.AddCommand(reportDiffCommand(), reportMergeCommand(), reportValidateCommand(), reportExpectCommand(), reportPerformanceCommand())
	return cmd
}

func reportDiffCommand() *cobra.Command {
	opts := reports.DefaultDiffOptions
	var format string
	cmd := &cobra.Command{
		Use: "diff BASE NEW",
		// BASE and NEW: a report, a merged matrix (compared cell by cell), or
		// one cell of a matrix, MATRIX#CELL.
		Short: "What changed from BASE to NEW: regressions, fixes, divergences, times; exit 1 on a regression",
		Long: `diff compares two reports check by check, e.g. a release candidate of Argo CD
against the last release, with the same plugins:

  regressions          Core or Extended checks that passed on BASE and fail on NEW
  fixes                checks that failed on BASE and pass on NEW
  divergences          Provisional checks (released Argo CD departing from the spec)
                       that appeared or went away
  changes of state     e.g. passed on BASE, skipped on NEW
  added, removed       checks only one report has
  slower, faster       checks whose time changed by --time-ratio and at least --time-min

A verdict that went from passed to anything else is a regression too (a run
error, a self-test mismatch). BASE and NEW may be merged matrices (report
merge): their cells of one name are compared, and a cell the new matrix
lacks is a regression; or one cell of a matrix each, MATRIX#CELL (the
previous version's cell as the baseline of the new one's). Markdown suits a pull request; --format json
suits machines.`,
		Args: cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			if format != "markdown" && format != "json" {
				return fmt.Errorf("--format is markdown or json, not %q", format)
			}
			if opts.TimeRatio < 1 || opts.TimeMin < 0 {
				return fmt.Errorf("--time-ratio must be at least 1 and --time-min not negative")
			}
			base, baseMatrix, err := readSide(args[0])
			if err != nil {
				return err
			}
			next, nextMatrix, err := readSide(args[1])
			if err != nil {
				return err
			}
			switch {
			case baseMatrix != nil && nextMatrix != nil:
				d, err := reports.CompareMatrices(baseMatrix, nextMatrix, opts)
				if err != nil {
					return err
				}
				return printDiff(d, format)
			case baseMatrix != nil || nextMatrix != nil:
				return fmt.Errorf("%w: one side is a merged matrix and the other a report: compare a cell of it (MATRIX#CELL)", reports.ErrIncomparable)
			}
			d, err := reports.Compare(base, next, opts)
			if err != nil {
				return err
			}
			return printDiff(d, format)
		}}
	cmd.Flags().StringVar(&format, "format", "markdown", "markdown or json")
	cmd.Flags().Float64Var(&opts.TimeRatio, "time-ratio", opts.TimeRatio, "a check is slower or faster when one side took this many times the other's time ...")
	cmd.Flags().DurationVar(&opts.TimeMin, "time-min", opts.TimeMin, "... and the difference is at least this")
	return cmd
}

func reportValidateCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check reports against the " + v1alpha1.APIVersion + " JSON Schema; exit 1 if any is invalid",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			bad := 0
			for _, a := range args {
				p := reportPath(a)
				if _, err := reports.Read(p); err != nil {
					bad++
					fmt.Fprintf(os.Stderr, "%s: invalid: %v\n", p, err)
					continue
				}
				fmt.Printf("%s: valid %s\n", p, v1alpha1.APIVersion)
			}
			if bad > 0 {
				return exitError{1}
			}
			return nil
		}}
}

func reportExpectCommand() *cobra.Command {
	var level string
	var failed []string
	cmd := &cobra.Command{
		Use:   "expect REPORT --level LEVEL [--failed ID,...]",
		Short: "Exit 0 only if a certify report reached LEVEL with exactly the failed checks named",
		Long: `expect gates on a known outcome: a plugin whose documented flaw must keep
failing exactly the checks it fails (this project's examples/go-plugin), or
one that must stay at its level. The failed checks are those of the
certified plugin, in any order; with no --failed, none may fail.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if level == "" {
				return fmt.Errorf("--level is required: one of %s, %s, %s, %s", v1alpha1.LevelConformant,
					v1alpha1.LevelPartiallyConformant, v1alpha1.LevelNotConformant, v1alpha1.LevelNotCertified)
			}
			r, err := reports.Read(reportPath(args[0]))
			if err != nil {
				return err
			}
			if problems := reports.Expect(r, level, failed); len(problems) > 0 {
				for _, p := range problems {
					fmt.Fprintln(os.Stderr, "unexpected:", p)
				}
				return exitError{1}
			}
			fmt.Printf("%s: %s, failed %v, as expected\n", reportPath(args[0]), level, failed)
			return nil
		}}
	cmd.Flags().StringVar(&level, "level", "", "the certification level the report must have")
	cmd.Flags().StringSliceVar(&failed, "failed", nil, "the checks that must have failed, and no other")
	return cmd
}

// reportPath accepts a run directory for its report.json.
func reportPath(p string) string {
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return filepath.Join(p, reports.ReportJSON)
	}
	return p
}

// printDiff prints a diff as JSON or Markdown; a regression is exit 1.
func printDiff(d interface {
	Markdown() string
	Regressed() bool
}, format string) error {
	if format == "json" {
		out, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			return err
		}
		fmt.Println(string(out))
	} else {
		fmt.Print(d.Markdown())
	}
	if d.Regressed() {
		return exitError{1}
	}
	return nil
}
