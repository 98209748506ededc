package keystore

import (
	"context"
	"fmt"
	"sync"
)

// Backend is the part of an OS keyring a Store uses: secrets stored by
// service and account.
//
// Get and Delete return an error wrapping ErrNotFound when there is no
// entry; Set replaces an existing entry. Implementations should honor ctx,
// but need not: a Store bounds every call with its timeout either way.
// OSKeyring is the real one; NewMemory is a fake for tests.
type Backend interface {
	// Get returns the secret stored for service and account.
	Get(ctx context.Context, service, account string) (string, error)
	// Set stores secret for service and account.
	Set(ctx context.Context, service, account, secret string) error
	// Delete removes the entry for service and account.
	Delete(ctx context.Context, service, account string) error
}

// Memory is an in-memory Backend for tests. Its zero value is not usable;
// call NewMemory. It is safe for concurrent use.
type Memory struct {
	mu sync.Mutex
	// mu guards:
	m map[memKey]string
}

type memKey struct{ service, account string }

// NewMemory returns an empty in-memory Backend.
func NewMemory() *Memory {
	return &Memory{m: make(map[memKey]string)}
}

// Get implements Backend.
func (m *Memory) Get(ctx context.Context, service, account string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("keystore: memory get: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.m[memKey{service, account}]
	if !ok {
		return "", fmt.Errorf("keystore: memory get %s/%s: %w", service, account, ErrNotFound)
	}
	return s, nil
}

// Set implements Backend.
func (m *Memory) Set(ctx context.Context, service, account, secret string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("keystore: memory set: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[memKey{service, account}] = secret
	return nil
}

// Delete implements Backend.
func (m *Memory) Delete(ctx context.Context, service, account string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("keystore: memory delete: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := memKey{service, account}
	if _, ok := m.m[k]; !ok {
		return fmt.Errorf("keystore: memory delete %s/%s: %w", service, account, ErrNotFound)
	}
	delete(m.m, k)
	return nil
}

// Len returns the number of entries, for tests that check nothing was left
// behind.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}
