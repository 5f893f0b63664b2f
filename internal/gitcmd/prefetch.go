package gitcmd

import "sync"

// objectCache holds the objects Shared.Prefetch read, by the names asked
// and by their ids: what a list's rows will ask, read in one pipelined
// batch rather than a round trip each. It also keeps the names that name
// nothing: a list is one view of a repository nothing writes to while it
// reads (the clean, which writes objects, never reads through Shared).
type objectCache struct {
	mu    sync.RWMutex
	m     map[string]Object
	bytes int
}

// maxPrefetchBytes bounds what Prefetch keeps: past it, names are read
// as they are asked.
const maxPrefetchBytes = 32 << 20

func (c *objectCache) get(name string) (Object, bool) {
	if c == nil {
		return Object{}, false
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	obj, ok := c.m[name]
	return obj, ok
}

// Prefetch reads names (each fixed: starting with an object id) through
// one reader in one pipelined batch, keeps the answers for every reader
// of s, and returns them (Type "" where a name names nothing). Names
// already kept are not asked again.
func (s *Shared) Prefetch(names []string) ([]Object, error) {
	out := make([]Object, len(names))
	if len(s.readers) == 0 {
		return out, nil
	}
	c := s.readers[0].pre
	var ask []string
	var at []int
	for i, n := range names {
		if !fixedName(n) {
			continue
		}
		if obj, ok := c.get(n); ok {
			out[i] = obj
		} else {
			ask, at = append(ask, n), append(at, i)
		}
	}
	objs, err := s.readers[0].GetMany(ask)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, obj := range objs {
		out[at[k]] = obj
		if c.bytes+len(obj.Data) > maxPrefetchBytes {
			continue
		}
		c.m[ask[k]] = obj
		if obj.Type != "" {
			c.m[obj.OID] = obj
		}
		c.bytes += len(obj.Data)
	}
	return out, nil
}
