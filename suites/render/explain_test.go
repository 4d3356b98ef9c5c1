package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pluginclient "github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
)

// tgz makes an archive as Argo CD streams a repository: each entry a name,
// its type, and its contents or link target.
func tgz(t *testing.T, entries ...tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, h := range entries {
		body := h.Linkname
		if h.Typeflag == tar.TypeSymlink || h.Typeflag == tar.TypeDir {
			body = ""
		} else {
			h.Linkname = ""
		}
		h.Size = int64(len(body))
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// call is a tapped client-streaming call: the metadata, the archive in two
// chunks, and the answer.
func call(t *testing.T, method string, meta *pluginclient.ManifestRequestMetadata, archive []byte, response interface{ Marshal() ([]byte, error) }, err error) argocd.TapCall {
	t.Helper()
	c := argocd.TapCall{Method: "/plugin.ConfigManagementPluginService/" + method, Start: time.Now(), End: time.Now().Add(120 * time.Millisecond), Err: err}
	msgs := []*pluginclient.AppStreamRequest{{Request: &pluginclient.AppStreamRequest_Metadata{Metadata: meta}}}
	half := len(archive) / 2
	for _, chunk := range [][]byte{archive[:half], archive[half:]} {
		msgs = append(msgs, &pluginclient.AppStreamRequest{Request: &pluginclient.AppStreamRequest_File{File: &pluginclient.File{Chunk: chunk}}})
	}
	for _, m := range msgs {
		data, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		c.Requests = append(c.Requests, data)
	}
	if response != nil {
		data, err := response.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		c.Responses = [][]byte{data}
	}
	return c
}

func TestExplainReadsWhatThePluginGot(t *testing.T) {
	archive := tgz(t,
		tar.Header{Name: "app/", Typeflag: tar.TypeDir, Mode: 0o755},
		tar.Header{Name: "app/cmp-plain.marker", Typeflag: tar.TypeReg},
		tar.Header{Name: "app/run.sh", Typeflag: tar.TypeReg, Mode: 0o755, Linkname: "echo hi\n"},
		tar.Header{Name: "app/link.yaml", Typeflag: tar.TypeSymlink, Linkname: "run.sh"},
	)
	p := argocd.Plugin{Name: "plain", Version: "v1.0", DiscoverFileName: "*.marker"}
	meta := &pluginclient.ManifestRequestMetadata{AppName: "render", AppRelPath: "app", Env: []*pluginclient.EnvEntry{
		{Name: "ARGOCD_APP_NAME", Value: "render"}, {Name: "ARGOCD_ENV_EVIL", Value: "a\x1b[31mred"},
		{Name: "ARGOCD_APP_PARAMETERS", Value: `[{"name":"replicas","string":"2"}]`}}}
	match := call(t, "MatchRepository", meta, archive, &pluginclient.RepositoryResponse{IsSupported: true, IsDiscoveryEnabled: true}, nil)
	gen := call(t, "GenerateManifest", meta, archive, &pluginclient.ManifestResponse{Manifests: []string{"{}", "{}"}}, nil)
	gen.Start = match.End

	a, err := discovery(match, p)
	if err != nil {
		t.Fatal(err)
	}
	if a.ArgoCD != "yes" || a.OurReading != "matches cmp-plain.marker" || !strings.Contains(a.Rule, `"*.marker"`) {
		t.Errorf("discovery: %+v", a)
	}
	r, err := received(gen)
	if err != nil {
		t.Fatal(err)
	}
	if r.AppPath != "app" || r.Objects != 2 || len(r.Files) != 4 || !strings.Contains(r.Parameters, `"replicas"`) {
		t.Errorf("received: %+v", r)
	}
	if f := r.Files[3]; f.Path != "app/link.yaml" || f.Link != "run.sh" || f.Mode&os.ModeSymlink == 0 {
		t.Errorf("the link was listed as %+v", f)
	}
	r.Files = append(r.Files, File{Path: ".git/HEAD", Mode: 0o644})
	e := &Explanation{Discovery: []Answer{a}, Received: r}
	var out bytes.Buffer
	e.Write(&out)
	for _, want := range []string{"and .git, 1 entries", "Argo CD's answer: yes", "ARGOCD_APP_NAME=render", `ARGOCD_ENV_EVIL="a\x1b[31mred"`, "-rwxr-xr-x", "app/link.yaml -> run.sh", "answer: 2 objects"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the explanation lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "\x1b") {
		t.Error("a hostile value reached the terminal unquoted")
	}

	// No match, and the plugin's error.
	p.DiscoverFileName = "*.absent"
	if a, _ := discovery(call(t, "MatchRepository", meta, archive, &pluginclient.RepositoryResponse{}, nil), p); a.ArgoCD != "no" || a.OurReading != "no file of app matches" {
		t.Errorf("no match: %+v", a)
	}
	failed := call(t, "GenerateManifest", meta, archive, nil, status.Error(codes.Unknown, "exit status 1: no YAML files"))
	if r, _ := received(failed); r == nil || r.Error != "exit status 1: no YAML files" {
		t.Errorf("the plugin's error: %+v", r)
	}
}

// TestKeepStaysInItsFolder: a kept working copy is written only inside its
// folder, whatever the archive's names and links say.
func TestKeepStaysInItsFolder(t *testing.T) {
	outside := t.TempDir()
	archive := tgz(t,
		tar.Header{Name: "../escaped.txt", Typeflag: tar.TypeReg, Linkname: "x"},
		tar.Header{Name: "out", Typeflag: tar.TypeSymlink, Linkname: outside},
		tar.Header{Name: "out/through-link.txt", Typeflag: tar.TypeReg, Linkname: "x"},
		tar.Header{Name: "ok/file.yaml", Typeflag: tar.TypeReg, Linkname: "kind: ConfigMap\n"},
	)
	e := &Explanation{Received: &Received{archive: archive}}
	dir, err := e.Keep()
	if dir != "" {
		defer os.RemoveAll(dir)
	}
	if err == nil {
		t.Error("an archive that writes through a link out of its folder was unpacked without an error")
	}
	if _, err := os.Stat(filepath.Join(outside, "through-link.txt")); err == nil {
		t.Error("a file was written through a link out of the kept folder")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escaped.txt")); err == nil {
		t.Error("a file was written above the kept folder")
	}
	if (&Explanation{}).Received == nil {
		if _, err := (&Explanation{}).Keep(); err == nil {
			t.Error("kept a working copy of a render that generated nothing")
		}
	}
}
