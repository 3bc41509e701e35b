// Package expander chooses which node group to scale up when several could
// help. Filters narrow the options (most-pods, least-waste, priority,
// highest-priority); a Chain applies them in order and breaks remaining ties
// at random, so "--expander=highest-priority,least-waste" keeps the groups
// of the highest priority, then the least wasteful of those, then picks one.
package expander
