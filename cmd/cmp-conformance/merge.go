package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

func reportMergeCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "merge [NAME=]REPORT... --output DIR",
		Short: "Join the reports of a matrix's cells (versions, runtimes, plugins, machines) into one",
		Long: `merge joins the reports of the cells of a matrix, each run on its own (a CI
job per Argo CD version and runtime, say), into one: DIR/matrix.json holds
every cell's report whole, DIR/summary.md and DIR/report.html the matrix
view (each cell's verdict and times, each check's state in each cell). A
cell is named by its Argo CD version and runtime (and the plugin, for a
certification) unless NAME= names it. The reports must be of one profile and
one harness (the same suite version); the matrix's verdict is the worst of
its cells', and so is the exit status.

  cmp-conformance report merge --output merged cell-a/report.json cell-b/report.json
  cmp-conformance report merge --output merged rc=rc/reports/latest last=release/reports/latest
  cmp-conformance report diff merged/matrix.json#v3.6.0/embedded merged/matrix.json#v3.6.1/embedded
  cmp-conformance report diff yesterday/matrix.json today/matrix.json   # cell by cell`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if output == "" {
				return fmt.Errorf("--output DIR: say where to write the merged report")
			}
			var cells []reports.Cell
			for _, a := range args {
				name, path, named := strings.Cut(a, "=")
				if !named {
					path = a
				}
				r, err := reports.Read(reportPath(path))
				if err != nil {
					return err
				}
				if !named {
					name = reports.CellName(r)
				}
				cells = append(cells, reports.Cell{Name: name, Report: r})
			}
			m, err := reports.Merge(cells)
			if err != nil {
				return err
			}
			if err := reports.WriteMatrix(output, m); err != nil {
				return err
			}
			fmt.Printf("matrix: %d cells, verdict %s\nreport: %s\n", len(m.Cells), m.Verdict, filepath.Join(output, reports.SummaryMD))
			if code := m.ExitCode(); code != 0 {
				return exitError{code}
			}
			return nil
		}}
	cmd.Flags().StringVar(&output, "output", "", "the folder to write matrix.json, summary.md and report.html into")
	return cmd
}

// readSide reads one side of a diff: a report, a merged matrix, or one cell
// of a matrix (MATRIX#CELL). A folder stands for the report or matrix in it.
func readSide(arg string) (*v1alpha1.ConformanceReport, *reports.Matrix, error) {
	if path, cell, ok := strings.Cut(arg, "#"); ok {
		m, err := reports.ReadMatrix(matrixPath(path))
		if err != nil {
			return nil, nil, err
		}
		r, err := m.Cell(cell)
		return r, nil, err
	}
	if p := matrixPath(arg); reports.IsMatrix(p) {
		m, err := reports.ReadMatrix(p)
		return nil, m, err
	}
	r, err := reports.Read(reportPath(arg))
	return r, nil, err
}

// matrixPath accepts a merge's folder for its matrix.json.
func matrixPath(p string) string {
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return filepath.Join(p, reports.MatrixJSON)
	}
	return p
}
