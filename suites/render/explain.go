package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	pluginclient "github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	"github.com/mattn/go-zglob"
	"google.golang.org/grpc/status"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
)

// Explanation is what one render went through, read from the calls the
// repo-server made to the plugin's server (argocd.Tap): render --explain.
type Explanation struct {
	// Discovery is each plugin the repo-server asked, in its order.
	Discovery []Answer
	// Received is what the plugin got to generate (nil when it was not
	// asked: no plugin claimed the sample).
	Received *Received
	// Phases are the renderer's start and this render's calls, timed.
	Phases []argocd.Phase
}

// Answer is one plugin's discovery: the rule plugin.yaml gives, what this
// harness reads of it on the files the plugin was sent, and Argo CD's own
// answer (argocd-cmp-server says only yes or no).
type Answer struct {
	Plugin, Rule, OurReading, ArgoCD string
}

// Received is a GenerateManifest call as the plugin's server got it.
type Received struct {
	Plugin, AppPath string
	// Env is what the repo-server sent (argocd-cmp-server runs the
	// command with its own process environment besides).
	Env []string
	// Parameters is ARGOCD_APP_PARAMETERS, indented.
	Parameters string
	// Files are the repository's files after Argo CD's exclusions.
	Files []File
	// Objects, or Error: what the plugin's server answered.
	Objects int
	Error   string
	Seconds float64
	// archive is the tgz the plugin got, for Keep.
	archive []byte
}

// File is one entry of what the plugin received.
type File struct {
	Path string
	Mode fs.FileMode
	Size int64
	// Link is a symbolic link's target.
	Link string
}

// explain reads one render's calls from the taps.
func explain(taps []*argocd.Tap, plugins map[string]argocd.Plugin, start []argocd.Phase) (*Explanation, error) {
	type call struct {
		tap  *argocd.Tap
		call argocd.TapCall
	}
	var calls []call
	for _, t := range taps {
		for _, c := range t.Take() {
			calls = append(calls, call{t, c})
		}
	}
	slices.SortFunc(calls, func(a, b call) int { return a.call.Start.Compare(b.call.Start) })
	e := &Explanation{Phases: slices.Clone(start)}
	for _, c := range calls {
		name := c.call.MethodName()
		e.Phases = append(e.Phases, argocd.Phase{Name: c.tap.Plugin + " " + name, Seconds: c.call.End.Sub(c.call.Start).Seconds()})
		switch name {
		case "MatchRepository":
			a, err := discovery(c.call, plugins[c.tap.Plugin])
			if err != nil {
				return nil, err
			}
			e.Discovery = append(e.Discovery, a)
		case "GenerateManifest":
			r, err := received(c.call)
			if err != nil {
				return nil, err
			}
			r.Plugin = c.tap.Plugin
			e.Received = r
		}
	}
	return e, nil
}

// stream reads a client stream's requests: the metadata, then the archive.
func stream(c argocd.TapCall) (*pluginclient.ManifestRequestMetadata, []byte, error) {
	var meta *pluginclient.ManifestRequestMetadata
	var archive bytes.Buffer
	for i, data := range c.Requests {
		var m pluginclient.AppStreamRequest
		if err := m.Unmarshal(data); err != nil {
			return nil, nil, fmt.Errorf("%s message %d: %w", c.MethodName(), i, err)
		}
		if md := m.GetMetadata(); md != nil {
			meta = md
		}
		archive.Write(m.GetFile().GetChunk())
	}
	if meta == nil {
		return nil, nil, fmt.Errorf("%s: no metadata was sent", c.MethodName())
	}
	return meta, archive.Bytes(), nil
}

// discovery is one plugin's answer to MatchRepository, beside our reading
// of its rule on the files it was sent.
func discovery(c argocd.TapCall, p argocd.Plugin) (Answer, error) {
	a := Answer{Plugin: p.FullName()}
	switch {
	case c.Err != nil:
		a.ArgoCD = "no (its discovery failed: " + status.Convert(c.Err).Message() + ")"
	case len(c.Responses) == 1:
		var r pluginclient.RepositoryResponse
		if err := r.Unmarshal(c.Responses[0]); err != nil {
			return a, err
		}
		a.ArgoCD = map[bool]string{true: "yes", false: "no"}[r.IsSupported]
	}
	meta, archive, err := stream(c)
	if err != nil {
		return a, err
	}
	switch {
	case p.DiscoverFileName != "":
		a.Rule = "discover.fileName " + strconv.Quote(p.DiscoverFileName)
		a.OurReading = readRule(archive, meta.AppRelPath, func(dir string) ([]string, error) {
			return filepath.Glob(filepath.Join(dir, p.DiscoverFileName))
		})
	case p.DiscoverGlob != "":
		a.Rule = "discover.find.glob " + strconv.Quote(p.DiscoverGlob)
		a.OurReading = readRule(archive, meta.AppRelPath, func(dir string) ([]string, error) {
			return zglob.Glob(filepath.Join(dir, p.DiscoverGlob))
		})
	case len(p.DiscoverCommand) > 0:
		a.Rule = "discover.find.command " + strconv.Quote(strings.Join(p.DiscoverCommand, " "))
		a.OurReading = "a command of the plugin decides: Argo CD's answer is the only one"
	default:
		a.Rule = "no discover rule"
		a.OurReading = "never selected by discovery: an application names it (spec.source.plugin.name)"
	}
	return a, nil
}

// readRule applies a discover rule as argocd-cmp-server does, to the
// files it was sent, unpacked in a folder of ours.
func readRule(archive []byte, appPath string, match func(dir string) ([]string, error)) string {
	dir, err := os.MkdirTemp("", "cmpc-explain-")
	if err != nil {
		return "not read: " + err.Error()
	}
	defer os.RemoveAll(dir)
	if err := unpack(archive, dir); err != nil {
		return "not read: " + err.Error()
	}
	appDir := filepath.Join(dir, filepath.FromSlash(path.Clean("/"+appPath)))
	matches, err := match(appDir)
	if err != nil {
		return "the pattern does not parse: " + err.Error()
	}
	if len(matches) == 0 {
		return "no file of " + appPath + " matches"
	}
	var rel []string
	for _, m := range matches {
		r, _ := filepath.Rel(appDir, m)
		rel = append(rel, r)
	}
	return "matches " + strings.Join(rel, ", ")
}

// received reads a GenerateManifest call.
func received(c argocd.TapCall) (*Received, error) {
	meta, archive, err := stream(c)
	if err != nil {
		return nil, err
	}
	r := &Received{AppPath: meta.AppRelPath, Seconds: c.End.Sub(c.Start).Seconds(), archive: archive}
	for _, e := range meta.Env {
		r.Env = append(r.Env, e.Name+"="+e.Value)
		if e.Name == "ARGOCD_APP_PARAMETERS" {
			var v any
			if json.Unmarshal([]byte(e.Value), &v) == nil {
				b, _ := json.MarshalIndent(v, "", "  ")
				r.Parameters = string(b)
			}
		}
	}
	slices.Sort(r.Env)
	if r.Files, err = listArchive(archive); err != nil {
		return nil, err
	}
	switch {
	case c.Err != nil:
		r.Error = status.Convert(c.Err).Message()
	case len(c.Responses) == 1:
		var m pluginclient.ManifestResponse
		if err := m.Unmarshal(c.Responses[0]); err != nil {
			return nil, err
		}
		r.Objects = len(m.Manifests)
	}
	return r, nil
}

// listArchive lists the tgz's entries.
func listArchive(archive []byte) ([]File, error) {
	var files []File
	err := walkArchive(archive, func(h *tar.Header, _ io.Reader) error {
		files = append(files, File{Path: h.Name, Mode: h.FileInfo().Mode(), Size: h.Size, Link: h.Linkname})
		return nil
	})
	return files, err
}

func walkArchive(archive []byte, each func(*tar.Header, io.Reader) error) error {
	if len(archive) == 0 {
		return nil
	}
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return fmt.Errorf("the archive the plugin got: %w", err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("the archive the plugin got: %w", err)
		}
		if err := each(h, tr); err != nil {
			return err
		}
	}
}

// unpack writes the archive into dir, confined to it (os.Root: no entry,
// link or parent link leads out), links kept as links.
func unpack(archive []byte, dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return walkArchive(archive, func(h *tar.Header, r io.Reader) error {
		name := path.Clean(h.Name)
		if name == "." || strings.HasPrefix(name, "../") || path.IsAbs(name) {
			return nil
		}
		if d := path.Dir(name); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		switch h.Typeflag {
		case tar.TypeDir:
			return root.MkdirAll(name, 0o755)
		case tar.TypeSymlink:
			return root.Symlink(h.Linkname, name)
		case tar.TypeReg:
			f, err := root.OpenFile(name, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, h.FileInfo().Mode().Perm()|0o200)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, r)
			return errors.Join(err, f.Close())
		}
		return nil
	})
}

// Keep writes the working copy the plugin received (before its init
// command ran) into a new folder and returns it.
func (e *Explanation) Keep() (string, error) {
	if e.Received == nil {
		return "", errors.New("the plugin was not asked to generate: there is no working copy to keep")
	}
	dir, err := os.MkdirTemp("", "cmpc-render-kept-")
	if err != nil {
		return "", err
	}
	return dir, unpack(e.Received.archive, dir)
}

// Write prints the explanation for a person.
func (e *Explanation) Write(w io.Writer) {
	fmt.Fprintln(w, "explain: discovery, in the order Argo CD asked the plugins:")
	if len(e.Discovery) == 0 {
		fmt.Fprintln(w, "  none asked: the application names its plugin (spec.source.plugin.name)")
	}
	for _, a := range e.Discovery {
		fmt.Fprintf(w, "  %s: %s\n    our reading: %s\n    Argo CD's answer: %s\n", a.Plugin, a.Rule, a.OurReading, a.ArgoCD)
	}
	if r := e.Received; r != nil {
		fmt.Fprintf(w, "explain: %s received (GenerateManifest, path %s):\n  environment sent by the repo-server:\n", r.Plugin, quoted(r.AppPath))
		for _, kv := range r.Env {
			name, value, _ := strings.Cut(kv, "=")
			fmt.Fprintf(w, "    %s=%s\n", name, quoted(value))
		}
		if r.Parameters != "" {
			fmt.Fprintf(w, "  parameters (ARGOCD_APP_PARAMETERS):\n    %s\n", strings.ReplaceAll(quotedLines(r.Parameters), "\n", "\n    "))
		}
		fmt.Fprintf(w, "  files after Argo CD's exclusions (%d):\n", len(r.Files))
		git := 0
		for _, f := range r.Files {
			// The repository's own .git streams too (unless excluded):
			// counted, not listed.
			if f.Path == ".git" || strings.HasPrefix(f.Path, ".git/") {
				git++
				continue
			}
			link := ""
			if f.Link != "" {
				link = " -> " + quoted(f.Link)
			}
			fmt.Fprintf(w, "    %s %8d  %s%s\n", f.Mode, f.Size, quoted(f.Path), link)
		}
		if git > 0 {
			fmt.Fprintf(w, "    and .git, %d entries: the repository's own, streamed as Argo CD streams it (--plugin-tar-exclude leaves it out)\n", git)
		}
		if r.Error != "" {
			fmt.Fprintf(w, "  answer: an error after %.2fs:\n    %s\n", r.Seconds, strings.ReplaceAll(quotedLines(r.Error), "\n", "\n    "))
		} else {
			fmt.Fprintf(w, "  answer: %d objects in %.2fs\n", r.Objects, r.Seconds)
		}
	}
	var phases []string
	for _, p := range e.Phases {
		phases = append(phases, fmt.Sprintf("%s %.2fs", p.Name, p.Seconds))
	}
	fmt.Fprintf(w, "explain: phases: %s\n", strings.Join(phases, ", "))
}

// quoted is s as it is when every rune prints, else Go-quoted: a value sent
// to a plugin, or its output, is hostile input and must not drive the
// terminal.
func quoted(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// quotedLines quotes each line of s that needs it.
func quotedLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = quoted(l)
	}
	return strings.Join(lines, "\n")
}
