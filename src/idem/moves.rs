//! Which comments a command moved from one key to another: the comment maps of a
//! file before and after, compared comment by comment.

use std::collections::BTreeMap;
use std::path::Path;

use super::report::CommentMove;
use crate::yaml::model::FileModel;

/// The comments of `path` whose key differs between `before` and `after`. Comments
/// are matched by their text, in order; added and removed comments are not moves.
pub fn moves(path: &Path, display: &str, before: &[u8], after: &[u8]) -> Vec<CommentMove> {
    let keys_before = comment_keys(&crate::yaml::model::FileModel::from_bytes(
        path,
        before.to_vec(),
    ));
    let keys_after = comment_keys(&crate::yaml::model::FileModel::from_bytes(
        path,
        after.to_vec(),
    ));
    let mut found = Vec::new();
    for (text, before) in &keys_before {
        let Some(after) = keys_after.get(text) else {
            continue;
        };
        for (from, to) in before.iter().zip(after) {
            if from != to {
                found.push(CommentMove {
                    file: display.to_string(),
                    text: text.clone(),
                    from: from.clone(),
                    to: to.clone(),
                });
            }
        }
    }
    found
}

/// Each comment's text, with the key path it documents (in file order per text).
fn comment_keys(model: &FileModel) -> BTreeMap<String, Vec<Option<String>>> {
    let mut keys: Vec<(usize, String, Option<String>)> = Vec::new();
    for document in &model.documents {
        for key in &document.keys {
            for attached in &key.comments {
                keys.push((
                    attached.comment.line,
                    attached.comment.text.clone(),
                    Some(key.path.clone()),
                ));
            }
        }
        for detached in &document.detached {
            keys.push((detached.comment.line, detached.comment.text.clone(), None));
        }
        for comment in &document.free {
            keys.push((comment.line, comment.text.clone(), None));
        }
    }
    keys.sort_by_key(|(line, _, _)| *line);
    let mut by_text: BTreeMap<String, Vec<Option<String>>> = BTreeMap::new();
    for (_, text, key) in keys {
        by_text.entry(text).or_default().push(key);
    }
    by_text
}
