package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

const (
	serviceCIDR = "10.96.0.0/16"
	serviceIP   = "10.96.0.1" // the "kubernetes" Service, first address of serviceCIDR
)

// apiserverArgs are ordinary kube-apiserver flags; --apiserver-arg values are appended, so they win.
func apiserverArgs(etcdURL string, p *pki, f flags) []string {
	return append([]string{
		"--advertise-address=127.0.0.1",
		"--etcd-servers=" + etcdURL,
		"--tls-cert-file=" + p.servingCert,
		"--tls-private-key-file=" + p.servingKey,
		"--client-ca-file=" + p.dir + "/ca.crt",
		"--token-auth-file=" + p.tokenFile,
		"--authorization-mode=Node,RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.saKey,
		"--service-account-signing-key-file=" + p.saKey,
		"--service-cluster-ip-range=" + serviceCIDR,
		"--allow-privileged=true",
		// Without a controller-manager nothing creates the "default" ServiceAccount of a new namespace, and the
		// ServiceAccount plugin would reject every pod there. Nothing removes the node.kubernetes.io/not-ready
		// taint that TaintNodesByCondition puts on new nodes either. Both plugins are off.
		"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
		// The lease reconciler would publish 127.0.0.1 as the endpoint of the "kubernetes" Service, which
		// Endpoints validation refuses (loopback). Nothing in the tests runs inside a pod, so publish nothing.
		"--endpoint-reconciler-type=none",
		"--v=" + strconv.Itoa(f.verbosity),
	}, f.apiserverArgs...)
}

// runAPIServer runs kube-apiserver in this process until ctx is cancelled. It does what kube-apiserver's own
// cobra command does (cmd/kube-apiserver/app.NewAPIServerCommand), minus its signal handling, which is ours.
func runAPIServer(ctx context.Context, listener net.Listener, etcdURL string, p *pki, f flags) error {
	s := options.NewServerRunOptions()
	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	for _, set := range s.Flags().FlagSets {
		fs.AddFlagSet(set)
	}
	if err := fs.Parse(apiserverArgs(etcdURL, p, f)); err != nil {
		return fmt.Errorf("apiserver flags: %w", err)
	}
	s.SecureServing.Listener = listener
	s.SecureServing.BindPort = listener.Addr().(*net.TCPAddr).Port

	registry := s.GenericServerRunOptions.ComponentGlobalsRegistry
	if err := registry.Set(); err != nil {
		return err
	}
	featureGate := registry.FeatureGateFor(basecompatibility.DefaultKubeComponent)
	if err := logsapi.ValidateAndApply(s.Logs, featureGate); err != nil {
		return err
	}
	rest.SetDefaultWarningHandler(rest.NoWarnings{})

	completed, err := s.Complete(ctx)
	if err != nil {
		return err
	}
	if errs := completed.Validate(); len(errs) != 0 {
		return utilerrors.NewAggregate(errs)
	}
	featureGate.(featuregate.MutableFeatureGate).AddMetrics()
	registry.AddMetrics()
	return app.Run(ctx, completed)
}

// waitForAPIServer waits until /readyz is ok and the namespaces KWOK writes to exist.
func waitForAPIServer(ctx context.Context, cfg *rest.Config, apiDone <-chan struct{}) error {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(90 * time.Second)
	var last error
	for {
		last = apiserverReady(ctx, client)
		if last == nil {
			return nil
		}
		select {
		case <-apiDone:
			return errors.New("apiserver exited before it was ready")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("apiserver not ready after 90s: %w", last)
		}
	}
}

func apiserverReady(ctx context.Context, client kubernetes.Interface) error {
	body, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("/readyz: %w: %s", err, body)
	}
	for _, ns := range []string{metav1.NamespaceDefault, "kube-node-lease"} {
		if _, err := client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil {
			if apierrors.IsNotFound(err) {
				return fmt.Errorf("namespace %s not created yet", ns)
			}
			return err
		}
	}
	klog.V(1).Info("apiserver ready")
	return nil
}
