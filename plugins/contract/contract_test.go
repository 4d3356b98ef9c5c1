package contract

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cmp-conformance/cmp-conformance/plugins/faulty"
)

func write(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

func TestFind(t *testing.T) {
	noEnv := func(string) string { return "" }
	tests := []struct {
		name, content string
		present       bool
		env           string
		wantOut       bool
		wantErr       bool
	}{
		{name: "no marker", wantOut: false},
		{name: "marker", present: true, wantOut: true},
		{name: "match", present: true, content: "match\n", wantOut: true},
		{name: "silent", present: true, content: "silent\n", wantOut: false},
		{name: "fail", present: true, content: "fail\n", wantOut: true, wantErr: true},
		{name: "unknown", present: true, content: "maybe", wantErr: true},
		{name: "hang", present: true, content: "hang /tmp/record\n", wantOut: true, wantErr: true},
		{name: "hang with a relative record", present: true, content: "hang record", wantErr: true},
		{name: "env names the marker", env: "m.marker", wantOut: true},
		{name: "env names another marker", env: "other.marker", wantOut: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.present {
				write(t, filepath.Join(dir, "m.marker"), tt.content, 0o644)
			}
			getenv := noEnv
			if tt.env != "" {
				getenv = func(k string) string {
					if k == FindEnv {
						return tt.env
					}
					return ""
				}
			}
			var out bytes.Buffer
			err := Find(dir, "m.marker", getenv, &out)
			if (err != nil) != tt.wantErr {
				t.Errorf("err = %v, want error %v", err, tt.wantErr)
			}
			if (out.Len() > 0) != tt.wantOut {
				t.Errorf("output %q, want output %v", out.String(), tt.wantOut)
			}
		})
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "m.marker"), "hang /tmp/r", 0o644)
	var hang *Hang
	if err := Find(dir, "m.marker", noEnv, &bytes.Buffer{}); !errors.As(err, &hang) || hang.Record != "/tmp/r" {
		t.Errorf("Find of a hang marker: %v, want a *Hang recording in /tmp/r", err)
	}
	scratch := t.TempDir()
	hangRecord, record := filepath.Join(scratch, "hang"), filepath.Join(scratch, "beside")
	write(t, filepath.Join(dir, "m.marker"), "await "+hangRecord+" "+record, 0o644)
	before := time.Now().UnixNano()
	go func() {
		time.Sleep(300 * time.Millisecond) // the hang begins while the find command awaits it
		faulty.RecordHang(hangRecord)
	}()
	var out bytes.Buffer
	if err := Find(dir, "m.marker", noEnv, &out); err != nil || !strings.Contains(out.String(), "found") {
		t.Fatalf("Find of an await marker: %v (output %q), want a match", err, out.String())
	}
	data, _ := os.ReadFile(record)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	at, ok := strings.CutPrefix(lines[0], "started ")
	if n, err := strconv.ParseInt(at, 10, 64); !ok || err != nil || n < before || len(lines) != 2 || !strings.HasPrefix(lines[1], "saw ") {
		t.Errorf("record %q: want \"started <unix nanoseconds>\" of this call, then \"saw <unix nanoseconds>\"", data)
	}
	// A hang that never begins: the command matches all the same, and says so.
	unseen := filepath.Join(scratch, "unseen")
	if err := Await(filepath.Join(scratch, "never"), unseen, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(unseen); !strings.HasSuffix(string(data), "unseen\n") {
		t.Errorf("record of an await whose hang never began: %q, want it to end with \"unseen\"", data)
	}
	if err := Find(t.TempDir(), "", noEnv, &bytes.Buffer{}); err == nil {
		t.Error("Find without a marker: want an error")
	}
}

func TestInit(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := Init(dir, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), InitObject) {
		t.Errorf("init printed %q, want the object %s", out.String(), InitObject)
	}
	if rec, _ := Walk(dir); rec.Init == "" {
		t.Error("Walk after Init: Init is empty")
	}
	write(t, filepath.Join(dir, InitFailFile), "refused: reason\n", 0o644)
	if err := Init(dir, &out); err == nil || err.Error() != "refused: reason" {
		t.Errorf("Init with %s: err = %v, want its message", InitFailFile, err)
	}
}

// Walk records modes, links and what they resolve to, without descending
// into a linked folder.
func TestWalkAndGenerate(t *testing.T) {
	repo := t.TempDir()
	app := filepath.Join(repo, "app")
	write(t, filepath.Join(app, "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", 0o644)
	write(t, filepath.Join(app, "run.sh"), "#!/bin/sh\n", 0o755)
	write(t, filepath.Join(app, "folder", "in.txt"), "in", 0o644)
	write(t, filepath.Join(repo, "shared", "out.txt"), "out", 0o644)
	for link, target := range map[string]string{"to-folder": "folder", "partial.txt": "../shared/out.txt", "dangling": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(app, link)); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	getenv := func(k string) string {
		if k == "ARGOCD_APP_SOURCE_PATH" {
			return "app"
		}
		return ""
	}
	if err := Generate(app, "cmp-test", getenv, &out); err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(out.String(), "---\n")
	if !strings.Contains(out.String(), "name: x") || !strings.Contains(docs[len(docs)-1], RecordConfigMap) {
		t.Fatalf("generate printed %q: want cm.yaml, then the record", out.String())
	}
	b64 := strings.TrimSpace(docs[len(docs)-1][strings.Index(docs[len(docs)-1], KeyRecord+":")+len(KeyRecord)+1:])
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Plugin != "cmp-test" || rec.SourcePath != "app" {
		t.Errorf("Plugin, SourcePath = %q, %q", rec.Plugin, rec.SourcePath)
	}
	checks := map[string]func(Entry) bool{
		"run.sh":        func(e Entry) bool { return e.Type == "file" && e.Mode == "0755" && e.Content == "#!/bin/sh\n" },
		"folder/in.txt": func(e Entry) bool { return e.Mode == "0644" && e.Content == "in" },
		"to-folder": func(e Entry) bool {
			return e.Type == "symlink" && e.TargetType == "dir" && len(e.Children) == 1 && e.Children[0] == "in.txt"
		},
		"partial.txt": func(e Entry) bool { return e.TargetType == "file" && e.Content == "out" },
		"dangling":    func(e Entry) bool { return e.Type == "symlink" && e.Error != "" },
	}
	for path, ok := range checks {
		e, found := rec.Entry(path)
		if !found || !ok(e) {
			t.Errorf("%s: %+v (found %v)", path, e, found)
		}
	}
	if _, found := rec.Entry("to-folder/in.txt"); found {
		t.Error("Walk descended into a linked folder")
	}
}

func TestReceivedFrom(t *testing.T) {
	root := filepath.Join(t.TempDir(), WorkDirName, "3f1c")
	for _, f := range []string{"top.txt", "apps/a/config.yaml", "apps/b/other.yaml"} {
		write(t, filepath.Join(root, f), "x", 0o644)
	}
	if err := os.Symlink("../b/other.yaml", filepath.Join(root, "apps/a/link.yaml")); err != nil {
		t.Fatal(err)
	}
	got := ReceivedFrom(filepath.Join(root, "apps/a"))
	want := Received{AppRelPath: "apps/a", Paths: []string{"apps/a/config.yaml", "apps/a/link.yaml", "apps/b/other.yaml", "top.txt"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReceivedFrom = %+v, want %+v", got, want)
	}
	if !got.Has("apps/b/other.yaml") || got.Has("apps/b") {
		t.Errorf("Has: files are received, folders are implied: %+v", got.Paths)
	}
	// As argocd-cmp-server runs it: in the folder, which generate calls ".".
	t.Chdir(filepath.Join(root, "apps/a"))
	if rel := ReceivedFrom(".").AppRelPath; rel != "apps/a" {
		t.Errorf(`ReceivedFrom(".").AppRelPath = %q, want apps/a`, rel)
	}
	// Not run by argocd-cmp-server: the record says so instead of walking
	// whatever lies above.
	if got := ReceivedFrom(t.TempDir()); got.Error == "" || len(got.Paths) != 0 {
		t.Errorf("outside a %s folder: %+v, want an error and no paths", WorkDirName, got)
	}
}

func TestFailingWhile(t *testing.T) {
	dir, scratch := t.TempDir(), t.TempDir()
	flag := filepath.Join(scratch, "flag")
	if err := FailingWhile(dir); err != nil {
		t.Errorf("without %s: %v, want nil", FailWhileFile, err)
	}
	write(t, filepath.Join(dir, FailWhileFile), flag+"\n", 0o644)
	var out bytes.Buffer
	for run := 1; run <= 2; run++ {
		out.Reset()
		if err := Generate(dir, "p", func(string) string { return "" }, &out); err == nil || out.Len() != 0 ||
			!strings.Contains(err.Error(), "asked to fail while "+flag+" exists by "+FailWhileFile) {
			t.Errorf("run %d, the flag there: %v with %d bytes out, want the error naming the flag and no output", run, err, out.Len())
		}
	}
	if _, err := os.Stat(flag); err != nil {
		t.Errorf("the first run did not make the flag: %v", err)
	}
	// The check removes the flag: the failure ends, and never comes back.
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	for run := 3; run <= 4; run++ {
		if err := FailingWhile(dir); err != nil {
			t.Errorf("run %d, the flag removed: %v, want nil", run, err)
		}
	}
	if runs, err := os.ReadFile(flag + ".runs"); err != nil || string(runs) != "fail\nfail\nok\nok\n" {
		t.Errorf("runs recorded: %q, %v; want two failures, then two successes", runs, err)
	}
	write(t, filepath.Join(dir, FailWhileFile), "flag", 0o644)
	if err := FailingWhile(dir); err == nil || !strings.Contains(err.Error(), "want the absolute path") {
		t.Errorf("a relative flag: %v, want an error saying what to write", err)
	}
}
