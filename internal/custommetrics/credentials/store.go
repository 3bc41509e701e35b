package credentials

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Config configures a Store.
type Config struct {
	// Client reads secrets.
	Client kubernetes.Interface
	// TokenSecretName is the name of the token secret in each namespace.
	TokenSecretName string
	// TokenKey is the data key of the token; default "token".
	TokenKey string
	// CASelector selects the CA secrets; default name in (ca, ca-bundle).
	CASelector labels.Selector
	// CAKeys are the data keys holding PEM certificates; default ca.crt and bundle.crt.
	CAKeys []string
}

// Default fills unset fields.
func (c *Config) Default() {
	if c.TokenSecretName == "" {
		c.TokenSecretName = "shoot-access-gardener-custom-metrics"
	}
	if c.TokenKey == "" {
		c.TokenKey = "token"
	}
	if c.CASelector == nil {
		sel, _ := labels.Parse("name in (ca,ca-bundle)")
		c.CASelector = sel
	}
	if len(c.CAKeys) == 0 {
		c.CAKeys = []string{"ca.crt", "bundle.crt"}
	}
}

// Validate reports the first invalid field.
func (c *Config) Validate() error {
	switch {
	case c.Client == nil:
		return errors.New("client: required")
	case c.CASelector.Empty():
		return errors.New("caSelector: must not select every secret")
	}
	return nil
}

// Store serves credentials per namespace from two narrow secret informers:
// one on the token secret's name, one on the CA label selector.
type Store struct {
	cfg       Config
	factories []informers.SharedInformerFactory
	tokens    cache.Indexer
	cas       cache.Indexer
	synced    []cache.InformerSynced

	mu      sync.Mutex
	caCache map[string]caSet
}

// New returns a Store; call Run to start it.
func New(cfg Config) (*Store, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("validating credentials config: %w", err)
	}
	s := &Store{cfg: cfg, caCache: map[string]caSet{}}
	byName := fields.OneTermEqualSelector("metadata.name", cfg.TokenSecretName).String()
	tokenInf := s.informer(func(o *metav1.ListOptions) { o.FieldSelector = byName })
	caSel := cfg.CASelector.String()
	caInf := s.informer(func(o *metav1.ListOptions) { o.LabelSelector = caSel })
	invalidate := func(obj any) {
		if m, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
			ns, _, _ := cache.SplitMetaNamespaceKey(m)
			s.mu.Lock()
			delete(s.caCache, ns)
			s.mu.Unlock()
		}
	}
	if _, err := caInf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: invalidate, UpdateFunc: func(_, o any) { invalidate(o) }, DeleteFunc: invalidate,
	}); err != nil {
		return nil, fmt.Errorf("adding CA secret handler: %w", err)
	}
	s.tokens, s.cas = tokenInf.GetIndexer(), caInf.GetIndexer()
	s.synced = []cache.InformerSynced{tokenInf.HasSynced, caInf.HasSynced}
	return s, nil
}

func (s *Store) informer(tweak func(*metav1.ListOptions)) cache.SharedIndexInformer {
	f := informers.NewSharedInformerFactoryWithOptions(s.cfg.Client, 0, informers.WithTweakListOptions(tweak))
	s.factories = append(s.factories, f)
	return f.Core().V1().Secrets().Informer()
}

// Run watches secrets until ctx ends.
func (s *Store) Run(ctx context.Context) {
	for _, f := range s.factories {
		f.Start(ctx.Done())
	}
	<-ctx.Done()
	for _, f := range s.factories {
		f.Shutdown()
	}
}

// HasSynced blocks until both informers are synced (true) or ctx ends
// (false).
func (s *Store) HasSynced(ctx context.Context) bool {
	return cache.WaitForCacheSync(ctx.Done(), s.synced...)
}

// Lookup returns the credentials of a namespace or a *MissingError.
func (s *Store) Lookup(namespace string) (Credentials, error) {
	token, err := s.token(namespace)
	if err != nil {
		return Credentials{}, err
	}
	ca := s.caSet(namespace)
	if ca.err != nil {
		return Credentials{}, ca.err
	}
	return Credentials{Token: token, CAs: ca.pool, CAFingerprint: ca.fingerprint}, nil
}

func (s *Store) token(namespace string) (Token, error) {
	obj, ok, err := s.tokens.GetByKey(namespace + "/" + s.cfg.TokenSecretName)
	if err != nil || !ok {
		return "", &MissingError{Namespace: namespace, What: "secret " + s.cfg.TokenSecretName}
	}
	secret, _ := obj.(*corev1.Secret)
	v := secret.Data[s.cfg.TokenKey]
	if len(v) == 0 {
		return "", &MissingError{Namespace: namespace, What: fmt.Sprintf("secret %s key %s", s.cfg.TokenSecretName, s.cfg.TokenKey)}
	}
	return Token(v), nil
}

func (s *Store) caSet(namespace string) caSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ca, ok := s.caCache[namespace]; ok {
		return ca
	}
	objs, _ := s.cas.ByIndex(cache.NamespaceIndex, namespace)
	secrets := make([]*corev1.Secret, 0, len(objs))
	for _, o := range objs {
		if sec, ok := o.(*corev1.Secret); ok {
			secrets = append(secrets, sec)
		}
	}
	ca := buildCASet(namespace, secrets, s.cfg.CAKeys)
	s.caCache[namespace] = ca
	return ca
}
