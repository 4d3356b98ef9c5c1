// Package deps pins the module's named dependencies while the packages that use them are written.
package deps

import (
	_ "github.com/argoproj/argo-cd/v3/pkg/apiclient"
	_ "github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	_ "github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	_ "github.com/argoproj/argo-cd/v3/cmpserver/plugin"
	_ "github.com/onsi/ginkgo/v2"
	_ "github.com/onsi/gomega"
	_ "github.com/spf13/cobra"
	_ "golang.org/x/mod/modfile"
	_ "sigs.k8s.io/e2e-framework/klient"
	_ "sigs.k8s.io/e2e-framework/support/kwok"
	_ "sigs.k8s.io/kind/pkg/cluster"
	_ "sigs.k8s.io/yaml"
)
