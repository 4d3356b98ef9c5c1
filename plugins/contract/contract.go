// Package contract is the program of the reference plugins for the rest of
// the documented plugin contract: discovery by find.command, init, file
// modes, symlinks, tar exclusions and git credentials. Generate renders the application
// folder's YAML files like the plain plugin and adds a record of what it
// found in its working copy, which checks read back from the cluster. It
// never runs a shell: file names and contents come from the repository.
package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/plugins/plain"
	"github.com/cmp-conformance/cmp-conformance/plugins/record"
)

// Names shared by the plugin and the checks.
const (
	// RecordConfigMap is the ConfigMap generate adds to the application.
	RecordConfigMap = "cmp-contract-record"
	// KeyRecord is its binaryData key: Record as JSON (base64 keeps
	// whatever bytes the repository held out of the manifest's YAML).
	KeyRecord = "record.json"

	// InitFile is what init writes into its working directory: generate,
	// run in the application folder, finds it there only if init ran first
	// in that same folder.
	InitFile = ".cmp-contract-init"
	// InitFailFile makes init fail, with the file's content as its message.
	InitFailFile = "cmp-contract-init-fail"
	// InitObject is the ConfigMap init prints on stdout: init's output is
	// not manifests, so it must never reach the cluster.
	InitObject = "cmp-contract-from-init"

	// ExcludedFile matches the repo-server's plugin tar exclusions of the
	// environment (argocd.PluginTarExclusions): it must never reach generate.
	ExcludedFile = "cmp-contract-excluded.txt"

	// FailWhileFile makes generate fail while the flag it names (an
	// absolute path in the plugin's scratch folder) exists: an error that
	// goes away with no new commit, as one from a flaky tool or a registry
	// outage would, for the error-cache checks. The first run makes the
	// flag, every run appends "fail" or "ok" to FLAG.runs, and whoever
	// removes the flag (the check, through the scratch folder) ends the
	// failure: the check decides when, after what it has seen, never a clock.
	FailWhileFile = "cmp-contract-fail-while"

	// FindEnv, set to a find command's marker in the application's plugin
	// env, makes that command match wherever it runs (it sees ARGOCD_ENV_*
	// from 2.11).
	FindEnv = "ARGOCD_ENV_CMP_CONTRACT_FIND"
)

// maxContent bounds what the record keeps of each file.
const maxContent = 4 << 10

// Entry is one thing in the working copy, as generate found it (Lstat: a
// link is recorded as a link, then followed for its content).
type Entry struct {
	Path string `json:"path"` // slash-separated, relative to the working directory
	Type string `json:"type"` // file, dir, symlink
	// Mode is the permission bits of the entry itself, in octal ("0644").
	Mode string `json:"mode"`
	// Target is a link's target as stored; TargetType what it resolves to
	// (file, dir), and Children a linked folder's entries.
	Target     string   `json:"target,omitempty"`
	TargetType string   `json:"targetType,omitempty"`
	Children   []string `json:"children,omitempty"`
	// SHA256 and Content (first 4 KiB) are a file's, links followed.
	SHA256  string `json:"sha256,omitempty"`
	Content string `json:"content,omitempty"`
	// Error says why a link or file could not be read.
	Error string `json:"error,omitempty"`
}

// Record is what generate found.
type Record struct {
	// Plugin is the name generate was given: which plugin rendered.
	Plugin string `json:"plugin"`
	// Init is the content of InitFile ("" when init did not run here).
	Init string `json:"init"`
	// SourcePath is ARGOCD_APP_SOURCE_PATH, so a reader can tell the
	// working directory is the application folder.
	SourcePath string  `json:"sourcePath"`
	Entries    []Entry `json:"entries"`
	// Credentials is what generate could obtain of the repository's git
	// credentials.
	Credentials Credentials `json:"credentials"`
	// Received is everything the repo-server sent, beyond the folder.
	Received Received `json:"received"`
}

// Find is the discovery command. It matches (prints, exits 0) when the
// application's plugin env sets FindEnv to marker, or when the folder it
// runs in holds marker, whose content can ask for a non-match: "silent"
// exits 0 printing nothing, "fail" prints and exits 1, and "hang RECORD"
// prints a match, then returns a *Hang for the caller to hang on (DISC-009).
// "await HANG RECORD" waits for the hang recorded in HANG to begin, and
// records in RECORD what it saw (Await) before it matches: DISC-009's other
// application, whose find command must run while the hang does.
// Each plugin passes a
// marker of its own, so plugins sharing this program never match each
// other's applications.
func Find(dir, marker string, getenv func(string) string, w io.Writer) error {
	if marker == "" || strings.ContainsRune(marker, '/') {
		return fmt.Errorf("find needs a marker file name, got %q", marker)
	}
	if getenv(FindEnv) == marker {
		_, err := fmt.Fprintln(w, "matched by", FindEnv)
		return err
	}
	data, err := os.ReadFile(filepath.Join(dir, marker))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no output: no match
	}
	if err != nil {
		return err
	}
	switch mode := strings.TrimSpace(string(data)); mode {
	case "", "match":
		_, err := fmt.Fprintln(w, "found", marker)
		return err
	case "silent":
		return nil
	case "fail":
		fmt.Fprintln(w, "found", marker)
		return errors.New("asked to fail by " + marker)
	default:
		if args, ok := strings.CutPrefix(mode, "await "); ok {
			hang, record, ok := strings.Cut(args, " ")
			if ok && filepath.IsAbs(hang) && filepath.IsAbs(record) {
				if err := Await(hang, record, AwaitLimit); err != nil {
					return err
				}
				_, err := fmt.Fprintln(w, "found", marker)
				return err
			}
		}
		if record, ok := strings.CutPrefix(mode, "hang "); ok && filepath.IsAbs(record) {
			if _, err := fmt.Fprintln(w, "found", marker); err != nil {
				return err
			}
			return &Hang{Record: record}
		}
		return fmt.Errorf("%s says %q; want match, silent, fail, hang /ABSOLUTE/RECORD or await /ABSOLUTE/HANG /ABSOLUTE/RECORD", marker, mode)
	}
}

// Init prepares the folder: it fails when InitFailFile is there, else
// writes InitFile and prints an object that must not become a manifest.
func Init(dir string, w io.Writer) error {
	if msg, err := os.ReadFile(filepath.Join(dir, InitFailFile)); err == nil {
		return errors.New(strings.TrimSpace(string(msg)))
	}
	if err := os.WriteFile(filepath.Join(dir, InitFile), []byte("init ran\n"), 0o644); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  from: init\n", InitObject)
	return err
}

// Generate writes the folder's YAML files (as plugins/plain does; none is
// fine here) and then the record, naming plugin as the one that rendered.
func Generate(dir, plugin string, getenv func(string) string, w io.Writer) error {
	if err := FailingWhile(dir); err != nil {
		return err
	}
	if err := plain.Generate(dir, w); err != nil && !errors.Is(err, plain.ErrNoFiles) {
		return err
	}
	rec, err := Walk(dir)
	if err != nil {
		return err
	}
	rec.Plugin, rec.SourcePath = plugin, getenv("ARGOCD_APP_SOURCE_PATH")
	rec.Credentials = ObtainCredentials(getenv)
	rec.Received = ReceivedFrom(dir)
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return record.Write(w, RecordConfigMap, KeyRecord, data)
}

// FailingWhile returns generate's error while the flag named by dir's
// FailWhileFile exists, and nil without one (FailWhileFile says how).
func FailingWhile(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, FailWhileFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	flag := strings.TrimSpace(string(data))
	if !filepath.IsAbs(flag) {
		return fmt.Errorf("%s holds %q; want the absolute path of a flag file", FailWhileFile, data)
	}
	// Only the first run makes FLAG.runs; it makes the flag too.
	runs, err := os.OpenFile(flag+".runs", os.O_APPEND|os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	first := err == nil
	if errors.Is(err, fs.ErrExist) {
		runs, err = os.OpenFile(flag+".runs", os.O_APPEND|os.O_WRONLY, 0)
	}
	if err != nil {
		return err
	}
	defer runs.Close()
	if first {
		if err := os.WriteFile(flag, nil, 0o644); err != nil {
			return err
		}
	}
	_, err = os.Stat(flag)
	failing := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	outcome := "ok\n"
	if failing {
		outcome = "fail\n"
	}
	if _, err := runs.WriteString(outcome); err != nil {
		return err
	}
	if failing {
		return fmt.Errorf("asked to fail while %s exists by %s", flag, FailWhileFile)
	}
	return nil
}

// Walk records the tree below dir without leaving it: links are read, not
// walked into, and a link's target is resolved only to say what it is.
func Walk(dir string) (Record, error) {
	var rec Record
	if data, err := os.ReadFile(filepath.Join(dir, InitFile)); err == nil {
		rec.Init = string(data)
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		e := Entry{Path: filepath.ToSlash(rel), Mode: fmt.Sprintf("%04o", info.Mode().Perm())}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			e.Type = "symlink"
			e.Target, _ = os.Readlink(p)
			describe(p, &e)
		case info.IsDir():
			e.Type = "dir"
		default:
			e.Type = "file"
			readContent(p, &e)
		}
		rec.Entries = append(rec.Entries, e)
		return nil
	})
	return rec, err
}

// describe resolves a link: a file's content, or a folder's entries.
func describe(p string, e *Entry) {
	info, err := os.Stat(p)
	if err != nil {
		e.Error = err.Error()
		return
	}
	if !info.IsDir() {
		e.TargetType = "file"
		readContent(p, e)
		return
	}
	e.TargetType = "dir"
	entries, err := os.ReadDir(p)
	if err != nil {
		e.Error = err.Error()
		return
	}
	for _, c := range entries {
		e.Children = append(e.Children, c.Name())
	}
}

func readContent(p string, e *Entry) {
	data, err := os.ReadFile(p)
	if err != nil {
		e.Error = err.Error()
		return
	}
	sum := sha256.Sum256(data)
	e.SHA256 = hex.EncodeToString(sum[:])
	if len(data) > maxContent {
		data = data[:maxContent]
	}
	e.Content = string(data)
}

// Entry returns the entry at path (slash-separated), if recorded.
func (r Record) Entry(path string) (Entry, bool) {
	for _, e := range r.Entries {
		if e.Path == path {
			return e, true
		}
	}
	return Entry{}, false
}
