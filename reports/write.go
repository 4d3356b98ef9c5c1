package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// File names Write produces inside a run directory.
const (
	ReportJSON = "report.json"
	ReportYAML = "report.yaml"
	JUnitXML   = "junit.xml"
	SummaryMD  = "summary.md"
)

// LatestLink is the name of the symlink Publish maintains under the root.
const LatestLink = "latest"

// Write renders r into dir as report.json, report.yaml, junit.xml,
// summary.md, report.html and attestation.intoto.json. Call Finalize first: Write renders the report as it is. Each
// file is written atomically, so an interrupt leaves every file either whole
// or absent, never half written.
func Write(dir string, r *v1alpha1.ConformanceReport) error {
	jsonData, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	jsonData = append(jsonData, '\n')
	if err := v1alpha1.Validate(jsonData); err != nil {
		// A harness bug, not a verdict: keep the document for diagnosis, but
		// never under the name tools read as a valid report.
		bad := filepath.Join(dir, "report.invalid.json")
		if os.MkdirAll(dir, 0o755) == nil && writeAtomic(bad, jsonData) == nil {
			return fmt.Errorf("the report %w (kept as %s)", err, bad)
		}
		return fmt.Errorf("the report %w", err)
	}
	// Converting from the JSON (rather than marshalling the struct with a YAML
	// library) keeps the YAML field names identical to the JSON ones.
	yamlData, err := yaml.JSONToYAML(jsonData)
	if err != nil {
		return fmt.Errorf("encode report as YAML: %w", err)
	}
	junitData, err := renderJUnit(r)
	if err != nil {
		return fmt.Errorf("encode JUnit: %w", err)
	}
	attestation, err := renderAttestation(r, jsonData)
	if err != nil {
		return fmt.Errorf("encode the attestation: %w", err)
	}
	htmlData, err := renderHTML(r)
	if err != nil {
		return fmt.Errorf("render HTML: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create report directory: %w", err)
	}
	// report.json goes last: tools treat it as the canonical record, so its
	// presence means every other file is already in place.
	for _, f := range []struct {
		name string
		data []byte
	}{
		{JUnitXML, junitData},
		{SummaryMD, []byte(renderSummary(r))},
		{ReportHTML, htmlData},
		{AttestationFile, attestation},
		{ReportYAML, yamlData},
		{ReportJSON, jsonData},
	} {
		if err := writeAtomic(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}

// writeAtomic writes data to a temporary file beside path, syncs it and
// renames it over path; rename is atomic within a file system.
func writeAtomic(path string, data []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// CreateTemp makes the file 0600; reports are meant to be shared.
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Sync before rename, or a crash could leave the new name on empty data.
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Publish points root/latest at root/<runID>. The link is relative so the
// whole root can be moved or archived, and it is swapped in by renaming a
// temporary link over it, so readers never find latest missing or half made.
func Publish(root, runID string) error {
	if runID == "" || runID == "." || runID == ".." || runID == LatestLink ||
		strings.ContainsAny(runID, `/\`) {
		return fmt.Errorf("publish: invalid run ID %q", runID)
	}
	info, err := os.Stat(filepath.Join(root, runID))
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("publish: %s is not a directory", filepath.Join(root, runID))
	}
	tmp := filepath.Join(root, fmt.Sprintf(".%s.tmp-%d-%d", LatestLink, os.Getpid(), time.Now().UnixNano()))
	if err := os.Symlink(runID, tmp); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(root, LatestLink)); err != nil {
		return errors.Join(fmt.Errorf("publish: %w", err), os.Remove(tmp))
	}
	return nil
}
