// Command rebound-kube runs a small but real Kubernetes control plane for Rebound's tests, in one process, on
// loopback: an embedded etcd, the real kube-apiserver (built from k8s.io/kubernetes), KWOK's node and pod
// controllers and the ClusterRole aggregation controller. There is no scheduler and no controller-manager;
// see README.md.
//
// When the cluster is ready it writes a kubeconfig and prints one line to stdout:
//
//	REBOUND_KUBE_READY {"kubeconfig":"...","server":"https://127.0.0.1:PORT"}
//
// SIGTERM or SIGINT stops KWOK and the role aggregation controller, then the apiserver, then etcd.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"
)

const readyMarker = "REBOUND_KUBE_READY"

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

type flags struct {
	dataDir       string
	port          int
	kubeconfig    string
	adminToken    string
	extraTokens   stringList
	apiserverArgs stringList
	verbosity     int
	withParent    bool
}

func parseFlags() flags {
	var f flags
	flag.StringVar(&f.dataDir, "data-dir", "", "directory for etcd data, certificates and tokens (required)")
	flag.IntVar(&f.port, "port", 0, "apiserver port on 127.0.0.1; 0 picks a free one")
	flag.StringVar(&f.kubeconfig, "kubeconfig", "", "where to write the admin kubeconfig (default <data-dir>/kubeconfig)")
	flag.StringVar(&f.adminToken, "admin-token", "", "bearer token of the admin user (group system:masters); random if empty")
	flag.Var(&f.extraTokens, "extra-token", `extra token-file line, repeatable: token,user,uid,"group1,group2"`)
	flag.Var(&f.apiserverArgs, "apiserver-arg", "extra kube-apiserver flag, repeatable, e.g. --apiserver-arg=--v=2")
	flag.IntVar(&f.verbosity, "v", 0, "log verbosity of the apiserver (klog)")
	flag.BoolVar(&f.withParent, "exit-with-parent", false, "shut down when the parent process dies")
	flag.Parse()
	if f.dataDir == "" {
		fmt.Fprintln(os.Stderr, "rebound-kube: --data-dir is required")
		os.Exit(2)
	}
	return f
}

func main() {
	f := parseFlags()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if f.withParent {
		go exitWithParent(stop)
	}
	if err := run(ctx, f); err != nil {
		klog.Flush()
		fmt.Fprintf(os.Stderr, "rebound-kube: %v\n", err)
		os.Exit(1)
	}
	klog.Flush()
}

// exitWithParent calls stop once this process is re-parented, that is when the process that started it died
// without stopping it (a test runner killed with SIGKILL, say).
func exitWithParent(stop func()) {
	parent := os.Getppid()
	for range time.Tick(time.Second) {
		if os.Getppid() != parent {
			klog.Info("rebound-kube: parent process died")
			stop()
			return
		}
	}
}

func run(ctx context.Context, f flags) error {
	dataDir, err := filepath.Abs(f.dataDir)
	if err != nil {
		return err
	}
	kubeconfigPath := f.kubeconfig
	if kubeconfigPath == "" {
		kubeconfigPath = filepath.Join(dataDir, "kubeconfig")
	}
	if kubeconfigPath, err = filepath.Abs(kubeconfigPath); err != nil {
		return err
	}
	// A stale kubeconfig must never be mistaken for a ready cluster.
	if err := os.Remove(kubeconfigPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}

	listener, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", f.port))
	if err != nil {
		return fmt.Errorf("listen for the apiserver: %w", err)
	}
	server := "https://" + listener.Addr().String()

	pki, err := writePKI(filepath.Join(dataDir, "pki"), f.adminToken, f.extraTokens)
	if err != nil {
		listener.Close()
		return fmt.Errorf("write certificates and tokens: %w", err)
	}

	// Everything started is stopped in reverse order on the way out: controllers, apiserver, etcd.
	var stops []func()
	defer func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}()

	etcd, err := startEtcd(filepath.Join(dataDir, "etcd"))
	if err != nil {
		listener.Close()
		return fmt.Errorf("start etcd: %w", err)
	}
	stops = append(stops, etcd.stop)

	apiCtx, stopAPI := context.WithCancel(context.Background())
	var apiErr error
	apiDone := make(chan struct{})
	go func() {
		apiErr = runAPIServer(apiCtx, listener, etcd.clientURL, pki, f)
		close(apiDone)
	}()
	stops = append(stops, func() {
		stopAPI()
		select {
		case <-apiDone:
		case <-time.After(30 * time.Second):
			klog.Error("apiserver did not stop within 30s")
		}
	})

	if err := waitForAPIServer(ctx, restConfig(server, pki.caPEM, pki.adminToken), apiDone); err != nil {
		if ctx.Err() != nil {
			return nil // asked to stop while starting
		}
		select {
		case <-apiDone:
			return fmt.Errorf("apiserver exited before it was ready: %v", apiErr)
		default:
			return err
		}
	}

	// KWOK, pod deletion and the role aggregation controller run as their own user, rebound-kube-controllers.
	controllersCtx, stopControllers := context.WithCancel(context.Background())
	stops = append(stops, stopControllers)
	controllersConfig := restConfig(server, pki.caPEM, pki.controllersToken)
	if err := startKwok(controllersCtx, filepath.Join(pki.dir, "kwok.kubeconfig"), controllersConfig); err != nil {
		return fmt.Errorf("start kwok: %w", err)
	}
	if err := startPodDeletion(controllersCtx, controllersConfig); err != nil {
		return fmt.Errorf("start pod deletion: %w", err)
	}
	if err := startRoleAggregation(controllersCtx, controllersConfig); err != nil {
		return err
	}

	if err := writeKubeconfig(kubeconfigPath, server, pki.caPEM, pki.adminToken); err != nil {
		return err
	}
	line, _ := json.Marshal(map[string]string{"kubeconfig": kubeconfigPath, "server": server})
	fmt.Printf("%s %s\n", readyMarker, line)

	select {
	case <-ctx.Done():
		klog.Info("rebound-kube: shutting down")
		return nil
	case <-apiDone:
		return fmt.Errorf("apiserver exited: %v", apiErr)
	}
}
