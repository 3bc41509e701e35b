package cmstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// Config names the ConfigMap and key a Store keeps its document in.
type Config struct {
	// Client reads and writes the ConfigMap.
	Client kubernetes.Interface
	// Namespace and Name locate the ConfigMap.
	Namespace, Name string
	// Key is the data key holding the document.
	Key string
	// Labels are set on a ConfigMap the store creates.
	Labels map[string]string
}

// Validate reports a missing field.
func (c *Config) Validate() error {
	var errs []error
	if c.Client == nil {
		errs = append(errs, errors.New("client: required"))
	}
	if c.Namespace == "" {
		errs = append(errs, errors.New("namespace: required"))
	}
	if c.Name == "" {
		errs = append(errs, errors.New("name: required"))
	}
	if c.Key == "" {
		errs = append(errs, errors.New("key: required"))
	}
	return errors.Join(errs...)
}

// Store reads and writes the document. It is not safe for concurrent use.
type Store struct {
	cfg Config
	// last is the document as last read or written; nil when unknown.
	last []byte
	// obj is the ConfigMap as last read or written: Save updates it
	// without reading it first, and reads only after a conflict with
	// another writer or a deletion (one request per change).
	obj *corev1.ConfigMap
}

// New validates cfg and returns a Store.
func New(cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuring ConfigMap store: %w", err)
	}
	return &Store{cfg: cfg}, nil
}

// Load returns the document; found is false when the ConfigMap or the key
// does not exist.
func (s *Store) Load(ctx context.Context) (doc []byte, found bool, err error) {
	cm, err := s.cfg.Client.CoreV1().ConfigMaps(s.cfg.Namespace).Get(ctx, s.cfg.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading ConfigMap %s/%s: %w", s.cfg.Namespace, s.cfg.Name, err)
	}
	v, ok := cm.Data[s.cfg.Key]
	if !ok {
		return nil, false, nil
	}
	s.last, s.obj = []byte(v), cm
	return []byte(v), true, nil
}

// Save writes doc unless it equals the document last read or written by
// this store. Other keys of the ConfigMap are kept.
func (s *Store) Save(ctx context.Context, doc []byte) error {
	return s.SaveAnnotated(ctx, doc, nil)
}

// SaveAnnotated writes doc and sets annotations on the ConfigMap (a
// stamp such as the status ConfigMap's last-updated time), unless doc
// equals the document last read or written and the ConfigMap carries
// annotations already. It updates the object last read or written
// without reading it first and reads only after a conflict with another
// writer or a deletion: one request per change. Other keys and
// annotations of the ConfigMap are kept.
func (s *Store) SaveAnnotated(ctx context.Context, doc []byte, annotations map[string]string) error {
	if s.last != nil && bytes.Equal(s.last, doc) && s.obj != nil && hasAnnotations(s.obj, annotations) {
		return nil
	}
	if s.obj != nil {
		err := s.update(ctx, s.obj, doc, annotations)
		if err == nil || (!apierrors.IsConflict(err) && !apierrors.IsNotFound(err)) {
			return err
		}
		s.obj = nil
	}
	cms := s.cfg.Client.CoreV1().ConfigMaps(s.cfg.Namespace)
	cm, err := cms.Get(ctx, s.cfg.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: s.cfg.Name, Namespace: s.cfg.Namespace, Labels: s.cfg.Labels,
			Annotations: maps.Clone(annotations)}, Data: map[string]string{s.cfg.Key: string(doc)}}
		created, err := cms.Create(ctx, cm, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating ConfigMap %s/%s: %w", s.cfg.Namespace, s.cfg.Name, err)
		}
		s.last, s.obj = bytes.Clone(doc), created
		return nil
	case err != nil:
		return fmt.Errorf("reading ConfigMap %s/%s: %w", s.cfg.Namespace, s.cfg.Name, err)
	}
	return s.update(ctx, cm, doc, annotations)
}

// UID returns the UID of the ConfigMap as last read or written, "" when
// unknown.
func (s *Store) UID() types.UID {
	if s.obj == nil {
		return ""
	}
	return s.obj.UID
}

// update writes doc and annotations into a copy of cm and remembers the
// result.
func (s *Store) update(ctx context.Context, cm *corev1.ConfigMap, doc []byte, annotations map[string]string) error {
	cm = cm.DeepCopy()
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[s.cfg.Key] = string(doc)
	if len(annotations) > 0 && cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	maps.Copy(cm.Annotations, annotations)
	updated, err := s.cfg.Client.CoreV1().ConfigMaps(s.cfg.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("updating ConfigMap %s/%s: %w", s.cfg.Namespace, s.cfg.Name, err)
	}
	s.last, s.obj = bytes.Clone(doc), updated
	return nil
}

// hasAnnotations reports whether cm carries every annotation with its
// value.
func hasAnnotations(cm *corev1.ConfigMap, annotations map[string]string) bool {
	for k, v := range annotations {
		if got, ok := cm.Annotations[k]; !ok || got != v {
			return false
		}
	}
	return true
}
