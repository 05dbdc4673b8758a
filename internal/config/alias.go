package config

import "gopkg.in/yaml.v3"

// MaxExpandedNodes bounds the size of the configuration once its aliases
// are expanded. A real configuration has a few hundred nodes; a few lines
// of nested aliases (the "billion laughs") would otherwise expand to more
// than memory holds.
const MaxExpandedNodes = 100000

// resolveAliases replaces every alias (*name) below doc by the node its
// anchor (&name) names, so that the rest of the parser sees the value, and
// refuses a document whose expansion would exceed MaxExpandedNodes. Merge
// keys (<<) are refused with a plain message: the keys they would add are
// easy to write out, and expanding them would check keys nobody wrote.
func (p *parser) resolveAliases(doc *yaml.Node) error {
	if err := p.replaceAliases(doc); err != nil {
		return err
	}
	sizes := map[*yaml.Node]int{}
	if _, err := p.expandedSize(doc, sizes); err != nil {
		return err
	}
	return nil
}

// replaceAliases points every alias's parent at the alias's target; it
// visits each node of the document as written once.
func (p *parser) replaceAliases(n *yaml.Node) error {
	for i, c := range n.Content {
		if c.Kind == yaml.MappingNode || c.Kind == yaml.SequenceNode || c.Kind == yaml.DocumentNode {
			if err := p.replaceAliases(c); err != nil {
				return err
			}
		}
		if n.Kind == yaml.MappingNode && i%2 == 0 && c.Tag == "!!merge" {
			return p.errf(c, "merge keys (<<) are not supported; write the keys out")
		}
		if c.Kind == yaml.AliasNode {
			if c.Alias == nil {
				return p.errf(c, "alias *%s names no anchor", c.Value)
			}
			n.Content[i] = c.Alias
		}
	}
	return nil
}

// expandedSize counts the nodes of n as if every alias were a copy,
// remembering the count of each shared node so that the count itself
// takes time in proportion to the document as written.
func (p *parser) expandedSize(n *yaml.Node, sizes map[*yaml.Node]int) (int, error) {
	if s, ok := sizes[n]; ok {
		if s < 0 {
			return 0, p.errf(n, "an alias refers to a value that contains it")
		}
		return s, nil
	}
	sizes[n] = -1 // in progress: meeting n again below means a cycle
	total := 1
	for _, c := range n.Content {
		s, err := p.expandedSize(c, sizes)
		if err != nil {
			return 0, err
		}
		total += s
		if total > MaxExpandedNodes {
			return 0, p.errf(n, "aliases expand the configuration to more than %d values; write it out without nested aliases", MaxExpandedNodes)
		}
	}
	sizes[n] = total
	return total, nil
}
