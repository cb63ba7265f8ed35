; The `kind:` of a document: a top-level key `kind` whose value is a plain scalar.
; Run from the root only (max start depth 0); `@kind` is the value.
(stream
  (document
    (block_node
      (block_mapping
        (block_mapping_pair
          key: (flow_node
            (plain_scalar) @key
            (#eq? @key "kind"))
          value: (flow_node
            (plain_scalar) @kind))))))
