//! Key path patterns (`spec.*.evictionStrategy`, `**.image`, `containers[*].name`):
//! what `[[require]]` entries and `tether.toml` name keys with. A leaf module.

/// A key path pattern: segments of names and `[index]`es, with `*`, `**` and `[*]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPattern {
    pub text: String,
    segments: Vec<PatternSegment>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum PatternSegment {
    /// A key name, possibly with `*` wildcards inside it.
    Name(String),
    /// `[N]`.
    Index(usize),
    /// `[*]`.
    AnyIndex,
    /// `*`: one segment, name or index.
    Any,
    /// `**`: any number of segments.
    AnyDepth,
}

impl KeyPattern {
    pub fn parse(text: &str) -> Result<KeyPattern, String> {
        let raw = split_path(text)?;
        let segments = raw
            .into_iter()
            .map(|segment| match segment {
                Segment::Index(index) if index == "*" => Ok(PatternSegment::AnyIndex),
                Segment::Index(index) => index
                    .parse()
                    .map(PatternSegment::Index)
                    .map_err(|_| format!("`[{index}]` is not an index; write `[0]` or `[*]`")),
                Segment::Name(name, quoted) if !quoted && name == "**" => {
                    Ok(PatternSegment::AnyDepth)
                }
                Segment::Name(name, quoted) if !quoted && name == "*" => Ok(PatternSegment::Any),
                Segment::Name(name, _) => Ok(PatternSegment::Name(name)),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if segments.is_empty() {
            return Err("the pattern is empty".into());
        }
        Ok(KeyPattern {
            text: text.to_string(),
            segments,
        })
    }

    /// Whether a model key path matches.
    pub fn matches(&self, path: &str) -> bool {
        let Ok(segments) = split_path(path) else {
            return false;
        };
        matches_from(&self.segments, &segments)
    }
}

/// Whether the pattern matches the whole path. A forward pass over the pattern that
/// keeps, for every prefix of the path, whether the pattern so far matches it: work
/// is pattern length × path length, however many `**` the pattern holds.
fn matches_from(pattern: &[PatternSegment], path: &[Segment]) -> bool {
    let mut matched = vec![false; path.len() + 1];
    matched[0] = true;
    for segment in pattern {
        let mut next = vec![false; path.len() + 1];
        match segment {
            PatternSegment::AnyDepth => {
                let mut reached = false;
                for (slot, &here) in next.iter_mut().zip(&matched) {
                    reached |= here;
                    *slot = reached;
                }
            }
            _ => {
                for (index, part) in path.iter().enumerate() {
                    if matched[index] && segment_matches(segment, part) {
                        next[index + 1] = true;
                    }
                }
            }
        }
        matched = next;
    }
    matched[path.len()]
}

fn segment_matches(pattern: &PatternSegment, segment: &Segment) -> bool {
    match (pattern, segment) {
        (PatternSegment::Any, _) | (PatternSegment::AnyDepth, _) => true,
        (PatternSegment::AnyIndex, Segment::Index(_)) => true,
        (PatternSegment::Index(wanted), Segment::Index(index)) => {
            index.parse::<usize>().ok() == Some(*wanted)
        }
        (PatternSegment::Name(wanted), Segment::Name(name, _)) => wildcard(wanted, name),
        _ => false,
    }
}

/// `*` inside a name matches any run of characters.
fn wildcard(pattern: &str, text: &str) -> bool {
    if !pattern.contains('*') {
        return pattern == text;
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let mut rest = text;
    for (index, part) in parts.iter().enumerate() {
        if index == 0 {
            let Some(after) = rest.strip_prefix(part) else {
                return false;
            };
            rest = after;
        } else if index == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            match rest.find(part) {
                Some(found) => rest = &rest[found + part.len()..],
                None => return false,
            }
        }
    }
    true
}

/// A segment of a helm-unittest path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// A key name, and whether it was written quoted (`["a.b"]`).
    Name(String, bool),
    /// What is between `[` and `]`.
    Index(String),
}

/// Splits `a.b[0]["c.d"]` into `a`, `b`, `[0]`, `c.d`.
fn split_path(text: &str) -> Result<Vec<Segment>, String> {
    let mut segments = Vec::new();
    let mut chars = text.chars().peekable();
    let mut name = String::new();
    let mut expect_name = true;
    while let Some(c) = chars.next() {
        match c {
            '.' => {
                if name.is_empty() && expect_name {
                    return Err("a segment is empty (two dots, or a leading dot)".into());
                }
                if !name.is_empty() {
                    segments.push(Segment::Name(std::mem::take(&mut name), false));
                }
                expect_name = true;
            }
            '[' => {
                if !name.is_empty() {
                    segments.push(Segment::Name(std::mem::take(&mut name), false));
                }
                if chars.peek() == Some(&'"') {
                    chars.next();
                    let mut quoted = String::new();
                    loop {
                        match chars.next() {
                            Some('\\') => quoted.extend(chars.next()),
                            Some('"') => break,
                            Some(other) => quoted.push(other),
                            None => return Err("a quoted key is not closed".into()),
                        }
                    }
                    if chars.next() != Some(']') {
                        return Err("`[\"…\"` must be closed by `]`".into());
                    }
                    segments.push(Segment::Name(quoted, true));
                } else {
                    let mut index = String::new();
                    loop {
                        match chars.next() {
                            Some(']') => break,
                            Some(other) => index.push(other),
                            None => return Err("`[` is not closed by `]`".into()),
                        }
                    }
                    segments.push(Segment::Index(index));
                }
                expect_name = false;
            }
            other => {
                name.push(other);
                expect_name = false;
            }
        }
    }
    if !name.is_empty() {
        segments.push(Segment::Name(name, false));
    } else if expect_name && !segments.is_empty() {
        return Err("the pattern ends with a dot".into());
    }
    Ok(segments)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_patterns() {
        let pattern = |text| KeyPattern::parse(text).unwrap();
        assert!(
            pattern("spec.configuration.evictionStrategy")
                .matches("spec.configuration.evictionStrategy")
        );
        assert!(pattern("spec.*.evictionStrategy").matches("spec.configuration.evictionStrategy"));
        assert!(pattern("**.evictionStrategy").matches("spec.configuration.evictionStrategy"));
        assert!(pattern("spec.**").matches("spec.a.b[3].c"));
        assert!(pattern("spec.containers[*].name").matches("spec.containers[2].name"));
        assert!(!pattern("spec.containers[1].name").matches("spec.containers[2].name"));
        assert!(
            pattern("metadata.annotations[\"helm.sh/*\"]")
                .matches("metadata.annotations[\"helm.sh/hook\"]")
        );
        assert!(!pattern("spec.*").matches("spec.a.b"));
        assert!(KeyPattern::parse("spec..x").is_err());
        assert!(KeyPattern::parse("spec[x").is_err());
    }
}
