package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPluginOverrides(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		flags   []string
		want    map[string]string
		wantErr bool
	}{
		{flags: nil, want: map[string]string{}},
		{flags: []string{"plain=/abs/dir"}, want: map[string]string{"plain": "/abs/dir"}},
		{flags: []string{"plain=./rel"}, want: map[string]string{"plain": filepath.Join(cwd, "rel")}},
		{flags: []string{"plain=/a", "plain=/b"}, want: map[string]string{"plain": "/b"}},
		{flags: []string{"plain=/a=b"}, want: map[string]string{"plain": "/a=b"}},
		{flags: []string{"plain"}, wantErr: true},
		{flags: []string{"=dir"}, wantErr: true},
		{flags: []string{"plain="}, wantErr: true},
		{flags: []string{"plain=/ok", "broken"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.flags, ","), func(t *testing.T) {
			f := &envFlags{plugins: tt.flags}
			got, err := f.pluginOverrides()
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "want ROLE=DIR") {
					t.Errorf("pluginOverrides(%q) = %v, %v; want a ROLE=DIR error", tt.flags, got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("pluginOverrides(%q): %v", tt.flags, err)
			}
			if len(got) != len(tt.want) {
				t.Errorf("pluginOverrides(%q) = %v, want %v", tt.flags, got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("pluginOverrides(%q)[%s] = %q, want %q", tt.flags, k, got[k], v)
				}
			}
		})
	}
}
