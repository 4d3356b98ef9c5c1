package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
	"github.com/cmp-conformance/cmp-conformance/suites/render"
)

func announceCommand() *cobra.Command {
	var f renderFlags
	cmd := &cobra.Command{
		Use:   "announce FOLDER",
		Short: "Print the parameters Argo CD's UI would show for a sample, and what makes them ill formed",
		Long: `announce sends a sample folder through the real repo-server of an Argo CD
version and your plugin's argocd-cmp-server, as render does, and asks for
what the API server asks when the UI shows an application's parameter form
(appdetails): your plugin's parameter announcements, its static ones and
what its dynamic command printed, merged as the UI gets them. They are
printed as JSON (or -o yaml); on stderr, whatever makes them ill formed by
the parameterized-plugin proposal (a name twice or missing, a collection or
item type that does not exist, a default not of its type: the findings of
PLUG-010), and the exit status is 1 then, or when the plugin fails.

  cmp-conformance announce ./samples/basic --plugin-dir ./plugin --plugin-path ./bin
  cmp-conformance announce --sample basic --image my-plugin:1.4 -o yaml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd.Context(), args, runAnnounce) },
	}
	f.bind(cmd.Flags())
	cmd.Flags().StringVarP(&f.output, "output", "o", "json", "json (the announcements as the API returns them) or yaml")
	return cmd
}

// runAnnounce starts the renderer, asks for the sample's announcements,
// prints them and judges them.
func runAnnounce(ctx context.Context, f *renderFlags, p argocd.Plugin, src render.Source, stdout, stderr io.Writer) error {
	began := time.Now()
	r, err := f.start(ctx, p, false, stderr)
	if err != nil {
		return err
	}
	defer func() {
		if err := r.Close(); err != nil {
			fmt.Fprintln(stderr, "announce: stopping:", err)
		}
	}()
	fmt.Fprintf(stderr, "announce: Argo CD %s and %s ready in %.1fs\n", r.Tools.ArgoCDVersion, p.FullName(), time.Since(began).Seconds())
	anns, sourceType, err := r.Announce(ctx, src, p.FullName())
	if err != nil {
		fmt.Fprintf(stderr, "announce: Argo CD %s could not read the parameters of %s with %s:\n%s\n", r.Tools.ArgoCDVersion, src, p.FullName(), err)
		return exitError{code: 1}
	}
	if sourceType != "Plugin" {
		fmt.Fprintf(stderr, "announce: Argo CD took %s for a source of type %q, not one of a plugin: no plugin claimed it (render --explain says why)\n", src, sourceType)
		return exitError{code: 1}
	}
	data, err := json.MarshalIndent(anns, "", "  ")
	if err != nil {
		return err
	}
	if len(anns) == 0 {
		data = []byte("[]")
	}
	if f.output == "yaml" {
		if data, err = yaml.JSONToYAML(data); err != nil {
			return err
		}
		data = []byte(string(data)[:len(data)-1])
	}
	fmt.Fprintf(stdout, "%s\n", data)
	problems := conformance.AnnouncementProblems(conformance.AnnouncementsFromAPI(anns))
	for _, p := range problems {
		fmt.Fprintln(stderr, "announce: ill formed (PLUG-010):", p)
	}
	fmt.Fprintf(stderr, "announce: %d parameters announced, %d problems\n", len(anns), len(problems))
	if len(problems) > 0 {
		return exitError{code: 1}
	}
	return nil
}
