"""Hover, go to definition, references and symbols over a chart whose templates
include a define of the library chart it depends on."""

import asyncio

import pytest
from lsprotocol import types
from conftest import open_file, replace_all


def at(text, needle, shift=0):
    """The position of `needle` (plus `shift` characters) in `text`."""
    offset = text.index(needle) + shift
    line = text.count("\n", 0, offset)
    return types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


def where(uri, position):
    return dict(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position
    )


async def hover(client, uri, position):
    found = await client.text_document_hover_async(types.HoverParams(**where(uri, position)))
    return found.contents.value if found else None


async def hover_until(client, uri, position, accept, timeout=10.0):
    """Hovers until the answer satisfies `accept`: right after a change of a file
    a hover quotes, the server may answer from the model of its text before while
    the new one is made (docs/src/editor.md, "Never in the way")."""

    async def wait():
        while True:
            shown = await hover(client, uri, position)
            if shown is not None and accept(shown):
                return shown
            await asyncio.sleep(0.02)

    return await asyncio.wait_for(wait(), timeout)


async def definition(client, uri, position):
    found = await client.text_document_definition_async(
        types.DefinitionParams(**where(uri, position))
    )
    return (found.uri, found.range.start.line) if found else None


@pytest.mark.asyncio
async def test_hover_on_reads_keys_and_includes(client, chart):
    template = chart / "app/templates/deployment.yaml"
    text = template.read_text()
    uri = open_file(client, template)
    shown = await hover(client, uri, at(text, ".Values.replicas", 9))
    assert shown.startswith("`.Values.replicas`: app/values.yaml:4")
    assert "replicas: 2" in shown and "Number of pods to run." in shown
    shown = await hover(client, uri, at(text, "(.Values.image).tag", 17))
    assert shown.startswith("`.Values.image.tag`: app/values.yaml:9")
    shown = await hover(client, uri, at(text, 'include "common', 10))
    assert shown.startswith("`common.fullname`: common/templates/_names.tpl:4")
    assert "default .Release.Name .Values.nameOverride" in shown
    # A read of a key the buffer of values.yaml no longer has.
    values = chart / "app/values.yaml"
    values_uri = open_file(client, values)
    replace_all(client, values_uri, 2, values.read_text().replace("replicas:", "replicaCount:"))
    missing = (
        "`.Values.replicas` is not defined in app/values.yaml; the nearest key is `replicaCount`"
    )
    shown = await hover_until(client, uri, at(text, ".Values.replicas", 9), lambda s: "not" in s)
    assert shown == missing
    shown = await hover(client, values_uri, types.Position(line=11, character=3))
    assert shown.startswith("`service.port`\n\nThe port the service listens on.")
    assert "- app/templates/deployment.yaml:12" in shown
    assert "- app/templates/deployment.yaml:19" in shown


@pytest.mark.asyncio
async def test_definition_from_every_spelling_of_a_read_and_from_include(client, chart):
    template = chart / "app/templates/deployment.yaml"
    text = template.read_text()
    uri = open_file(client, template)
    values = (chart / "app/values.yaml").as_uri()
    assert await definition(client, uri, at(text, ".Values.replicas", 9)) == (values, 3)
    assert await definition(client, uri, at(text, "(.Values.image).tag", 17)) == (values, 8)
    assert await definition(client, uri, at(text, "$.Values.service.port", 18)) == (values, 11)
    assert await definition(client, uri, at(text, 'index .Values "service" "port"', 7)) == (
        values,
        11,
    )
    names = (chart / "common/templates/_names.tpl").as_uri()
    assert await definition(client, uri, at(text, '"common.fullname"', 3)) == (names, 3)
    # From the library's define to the values of the chart that includes it.
    library = chart / "common/templates/_names.tpl"
    library_uri = open_file(client, library)
    library_text = library.read_text()
    assert await definition(
        client, library_uri, at(library_text, ".Values.nameOverride", 9)
    ) == (values, 1)


@pytest.mark.asyncio
async def test_an_include_after_a_read_in_one_action_names_its_define(client, chart):
    """The cursor on the name of an include that follows a `.Values` read in the
    same action names the define, not the read's key (the read still answers on
    its own words)."""
    template = chart / "app/templates/deployment.yaml"
    uri = open_file(client, template)
    line = '  labels: {{ default .Values.nameOverride (include "common.fullname" .) }}\n'
    text = template.read_text().replace("spec:\n", "spec:\n" + line, 1)
    replace_all(client, uri, 2, text)
    names = (chart / "common/templates/_names.tpl").as_uri()
    values = (chart / "app/values.yaml").as_uri()
    name = at(text, '"common.fullname" .)', 5)
    assert await definition(client, uri, name) == (names, 3)
    shown = await hover(client, uri, name)
    assert shown.startswith("`common.fullname`: common/templates/_names.tpl:4"), shown
    read = at(text, ".Values.nameOverride (", 9)
    assert await definition(client, uri, read) == (values, 1)


@pytest.mark.asyncio
async def test_references_and_symbols(client, chart):
    values = chart / "app/values.yaml"
    uri = open_file(client, values)
    found = await client.text_document_references_async(
        types.ReferenceParams(
            **where(uri, types.Position(line=11, character=3)),
            context=types.ReferenceContext(include_declaration=False),
        )
    )
    template = (chart / "app/templates/deployment.yaml").as_uri()
    assert sorted((r.uri, r.range.start.line) for r in found) == [
        (template, 11),
        (template, 13),
        (template, 18),
    ]
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    outline = [(s.name, [c.name for c in s.children or []]) for s in symbols]
    assert outline == [
        ("nameOverride", []),
        ("replicas", []),
        ("image", ["repository", "tag"]),
        ("service", ["port"]),
        ("child", ["replicas"]),
        ("global", ["region"]),
    ]
    # A parent's range holds its children's.
    image = symbols[2]
    assert image.range.end.line == image.children[-1].range.end.line == 8


@pytest.mark.asyncio
async def test_hover_on_a_key_read_by_many_lines_lists_ten(client, chart):
    template = chart / "app/templates/deployment.yaml"
    uri = open_file(client, template)
    reads = "".join(f"  port{n}: {{{{ .Values.service.port }}}}\n" for n in range(14))
    text = template.read_text().replace("spec:\n", "spec:\n" + reads, 1)
    replace_all(client, uri, 2, text)
    values = chart / "app/values.yaml"
    values_uri = open_file(client, values)
    shown = await hover(client, values_uri, types.Position(line=11, character=3))
    listed = [line for line in shown.splitlines() if line.startswith("- ")]
    assert len(listed) == 11, shown
    assert listed[-1] == "- … and 7 more (Find All References lists every one)", shown


@pytest.mark.asyncio
async def test_hover_renders_annotation_comments_and_finds_cozyvalues_fields(client, chart):
    """`## @param` lines are text, not headings; an indented example keeps its
    indentation in a code block; a key documented by a cozyvalues-gen `@field` of
    its parent's `@typedef` shows that documentation."""
    values = chart / "app/values.yaml"
    uri = open_file(client, values)
    text = (
        "## @typedef {struct} Resources - CPU and memory.\n"
        "## @field {quantity} [cpu] - CPU available to each replica.\n"
        "\n"
        "## @param {Resources} [resources] - Explicit CPU and memory.\n"
        "resources:\n"
        "  cpu: 100m\n"
        "## @param {int} replicas - Number of pods.\n"
        "## Example:\n"
        "##   replicas: 3\n"
        "##     # three zones\n"
        "replicas: 2\n"
    )
    replace_all(client, uri, 2, text)
    shown = await hover(client, uri, types.Position(line=5, character=3))
    assert shown.startswith("`resources.cpu`\n\nCPU available to each replica."), shown
    assert "(line 2: `## @field {quantity} [cpu] - CPU available to each replica.`)" in shown
    shown = await hover(client, uri, types.Position(line=10, character=3))
    assert not any(line.startswith("#") for line in shown.splitlines()), shown
    assert "@param {int} replicas - Number of pods." in shown
    assert "```yaml\nreplicas: 3\n  # three zones\n```" in shown, shown


@pytest.mark.asyncio
async def test_hover_on_built_in_objects(client, chart):
    """`.Chart` fields show their line of the chart's Chart.yaml; `.Release` and the
    other built-ins say what they hold."""
    template = chart / "app/templates/deployment.yaml"
    uri = open_file(client, template)
    line = "  labels: {{ $.Chart.Version }}-{{ .Release.Namespace }}-{{ .Chart.AppVersion }}\n"
    text = template.read_text().replace("spec:\n", "spec:\n" + line, 1)
    replace_all(client, uri, 2, text)
    shown = await hover(client, uri, at(text, "$.Chart.Version", 9))
    assert shown == "`.Chart.Version`: `version` in the chart's Chart.yaml\n\n```yaml\nversion: 0.1.0\n```"
    shown = await hover(client, uri, at(text, ".Release.Namespace", 10))
    assert shown == "`.Release.Namespace`: the namespace the release is installed into"
    shown = await hover(client, uri, at(text, ".Chart.AppVersion", 8))
    assert shown == "`.Chart.AppVersion`: `appVersion` in the chart's Chart.yaml, which does not set it"


async def references(client, uri, position, declaration):
    found = await client.text_document_references_async(
        types.ReferenceParams(
            **where(uri, position),
            context=types.ReferenceContext(include_declaration=declaration),
        )
    )
    return sorted((r.uri, r.range.start.line, r.range.start.character) for r in found or [])


@pytest.mark.asyncio
async def test_references_from_a_read_a_define_and_a_variable(client, chart):
    """From a `.Values` read: the key and every read of it; from a call or the
    `define`: the define and every call, in the chart and the library; from a
    variable: its declaration and every use in its scope, not a shadowing one's."""
    template = chart / "app/templates/deployment.yaml"
    uri = open_file(client, template)
    extra = (
        '  annotations: {{ include "common.fullname" . }}\n'
        "  {{- $port := .Values.service.port }}\n"
        "  {{- range $port := list 1 2 }}{{ $port }}{{ end }}\n"
        "  port: {{ $port }}\n"
    )
    text = template.read_text().replace("spec:\n", "spec:\n" + extra, 1)
    replace_all(client, uri, 2, text)
    values = (chart / "app/values.yaml").as_uri()
    # A read: its key (with the declaration) and every read of service.port,
    # through the variable that holds it too.
    found = await references(client, uri, at(text, "$.Values.service.port", 18), True)
    assert [(u, line) for u, line, _ in found] == [
        (uri, 6),
        (uri, 8),
        (uri, 15),
        (uri, 17),
        (uri, 22),
        (values, 11),
    ]
    # A call: the define and both includes.
    names = (chart / "common/templates/_names.tpl").as_uri()
    found = await references(client, uri, at(text, '"common.fullname" . }}\n  {{-', 3), True)
    assert [(u, line) for u, line, _ in found] == [(uri, 3), (uri, 5), (names, 3)]
    # From the library's define: the calls, without the define itself.
    library = chart / "common/templates/_names.tpl"
    library_uri = open_file(client, library)
    found = await references(
        client, library_uri, at(library.read_text(), '"common.fullname"', 3), False
    )
    assert [(u, line) for u, line, _ in found] == [(uri, 3), (uri, 5)]
    # A variable: its declaration and its use after the range, not the range's own.
    found = await references(client, uri, at(text, "port: {{ $port", 11), True)
    assert [(u, line) for u, line, _ in found] == [(uri, 6), (uri, 8)]
    assert await definition(client, uri, at(text, "port: {{ $port", 11)) == (uri, 6)
    shown = await hover(client, uri, at(text, "{{ $port }}{{ end", 5))
    assert shown.startswith("`$port`: declared on line 8\n\n```gotmpl\n{{- range $port := list 1 2 }}"), shown


@pytest.mark.asyncio
async def test_definition_of_a_chart_field_is_its_line_of_chart_yaml(client, chart):
    template = chart / "app/templates/deployment.yaml"
    uri = open_file(client, template)
    text = template.read_text().replace("spec:\n", "spec:\n  v: {{ .Chart.Version }}\n", 1)
    replace_all(client, uri, 2, text)
    assert await definition(client, uri, at(text, ".Chart.Version", 9)) == (
        (chart / "app/Chart.yaml").as_uri(),
        2,
    )
