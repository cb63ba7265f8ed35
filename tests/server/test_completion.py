"""Completion in a template, through a real client: values keys at each depth (the
chart's own, a parent's overrides and `global` in a subchart, keys that need
`index`), named templates across the chart graph, built-in objects and their
fields, variables in scope, and functions, each resolved with its documentation;
and the template errors Helm's parser would refuse, with hover on functions."""

import asyncio

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from conftest import TETHER, capabilities, diagnostics_until, open_file, replace_all


def end_of(text):
    """The position at the end of `text`."""
    lines = text.split("\n")
    return types.Position(line=len(lines) - 1, character=len(lines[-1]))


async def complete(client, uri, text, version):
    """Replaces the buffer with `text` and completes at its end: the items by label."""
    replace_all(client, uri, version, text)
    found = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=end_of(text)
        )
    )
    items = found if isinstance(found, list) else (found.items if found else [])
    return {item.label: item for item in items}


async def documentation(client, item):
    resolved = await client.completion_item_resolve_async(item)
    return resolved.documentation.value if resolved.documentation else None


@pytest.mark.asyncio
async def test_values_keys_at_every_depth(client, chart):
    template = chart / "app/templates/deployment.yaml"
    uri = open_file(client, template)
    items = await complete(client, uri, "x: {{ .Values.", 2)
    assert list(items)[:6] == ["nameOverride", "replicas", "image", "service", "child", "global"]
    assert items["replicas"].detail == "app/values.yaml:4"
    assert items["replicas"].kind == types.CompletionItemKind.Field
    assert items["image"].kind == types.CompletionItemKind.Module
    shown = await documentation(client, items["replicas"])
    assert shown.startswith("`.Values.replicas`: app/values.yaml:4")
    assert "Number of pods to run." in shown
    # A nested key, typed in part: the edit replaces what is typed.
    items = await complete(client, uri, "x: {{ (.Values.image).ta", 3)
    assert set(items) == {"repository", "tag"}
    edit = items["tag"].text_edit
    assert (edit.range.start.character, edit.range.end.character, edit.new_text) == (22, 24, "tag")
    assert "The image's tag." in await documentation(client, items["tag"])


@pytest.mark.asyncio
async def test_a_subchart_completes_its_parents_overrides_and_global(client, chart):
    template = chart / "app/charts/child/templates/deployment.yaml"
    uri = open_file(client, template)
    items = await complete(client, uri, "x: {{ .Values.", 2)
    assert set(items) == {"replicas", "global"}
    shown = await documentation(client, items["replicas"])
    # The parent's value wins, and says so.
    assert shown.startswith("`.Values.replicas`: app/values.yaml:16")
    assert "Set by the parent chart `app`" in shown
    items = await complete(client, uri, "x: {{ $.Values.global.", 3)
    assert set(items) == {"region"}
    assert "The region every chart deploys to." in await documentation(client, items["region"])


@pytest.mark.asyncio
async def test_a_key_that_is_no_identifier_is_reached_by_index(client, chart):
    values = chart / "app/values.yaml"
    values.write_text(values.read_text() + "pod-labels:\n  team: a\n")
    template = chart / "app/templates/deployment.yaml"
    uri = open_file(client, template)
    items = await complete(client, uri, "x: {{ .Values.po", 2)
    edit = items["pod-labels"].text_edit
    assert edit.new_text == '(index .Values "pod-labels")'
    assert (edit.range.start.character, edit.range.end.character) == (6, 16)
    assert items["pod-labels"].filter_text == ".Values.pod-labels"


@pytest.mark.asyncio
async def test_named_templates_builtins_variables_and_functions(client, chart):
    template = chart / "app/templates/deployment.yaml"
    uri = open_file(client, template)
    items = await complete(client, uri, 'x: {{ include "', 2)
    assert list(items) == ["common.fullname"]
    shown = await documentation(client, items["common.fullname"])
    assert shown.startswith("`common.fullname`: common/templates/_names.tpl:4")
    items = await complete(client, uri, "x: {{ .", 3)
    assert {"Values", "Chart", "Release", "Capabilities", "Files", "Template"} <= set(items)
    items = await complete(client, uri, "x: {{ .Chart.", 4)
    assert "`name` in the chart's Chart.yaml\n\n```yaml\nname: app\n```" in (
        items["Name"].documentation.value
    )
    assert "does not set it" in items["AppVersion"].documentation.value
    text = (
        "{{- $name := .Values.nameOverride }}\n"
        "{{- range $i, $port := .Values.ports }}\n"
        "{{- end }}\n"
        "{{ define \"x\" }}{{ $inside := 1 }}{{ end }}\n"
        "x: {{ $"
    )
    items = await complete(client, uri, text, 5)
    assert list(items) == ["$", "$name"]
    assert items["$name"].detail.startswith("{{- $name := .Values.nameOverride")
    items = await complete(client, uri, "x: {{ .Values.nameOverride | tru", 6)
    assert items["trunc"].detail == "trunc COUNT STRING"
    assert "if" not in items
    assert "(Sprig 3.3.0)" in await documentation(client, items["trunc"])
    items = await complete(client, uri, "{{ ", 7)
    assert items["if"].kind == types.CompletionItemKind.Keyword
    assert items["include"].detail == "include NAME CONTEXT"


@pytest.mark.asyncio
async def test_template_errors_as_you_type_and_hover_on_functions(client, chart):
    """What Helm's parser refuses is a finding as the line is typed (as `check`
    says it); a function's hover shows its signature and where it comes from."""
    template = chart / "app/templates/deployment.yaml"
    uri = open_file(client, template)
    text = template.read_text() + "  labels: {{ toYml .Values.image | nindent 4 }}{{ $nope }}\n"
    replace_all(client, uri, 2, text)
    found = await diagnostics_until(
        client, uri, lambda found: any(d.code == "template-error" for d in found)
    )
    messages = sorted(d.message.split("\nhelp: ")[0] for d in found if d.code == "template-error")
    assert messages == [
        "`$nope` is not declared here: Helm's parser fails with `undefined variable \"$nope\"`",
        "`toYml` is no function Helm defines: Helm's parser fails with "
        "`function \"toYml\" not defined`; did you mean `toYaml`?",
    ]
    line = text.count("\n") - 1
    character = text.splitlines()[line].index("nindent") + 2
    shown = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )
    assert shown.contents.value.startswith("```gotmpl\nnindent SPACES STRING\n```\n\n")
    assert shown.contents.value.endswith("(Sprig 3.3.0)")


@pytest.mark.asyncio
async def test_other_values_files_count_for_hover_and_completion(client, chart):
    """A key only `values-prod.yaml` sets hovers from there and is completed."""
    (chart / "app/values-prod.yaml").write_text(
        "ingress:\n  # The host in production.\n  host: app.example.com\n"
    )
    template = chart / "app/templates/deployment.yaml"
    uri = open_file(client, template)
    items = await complete(client, uri, "x: {{ .Values.", 2)
    assert items["ingress"].detail == "app/values-prod.yaml:1"
    items = await complete(client, uri, "x: {{ .Values.ingress.", 3)
    shown = await documentation(client, items["host"])
    assert shown.startswith("`.Values.ingress.host`: app/values-prod.yaml:3"), shown
    assert "The host in production." in shown


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[TETHER, "server"]))
async def named_values_client(lsp_client: LanguageClient, chart):
    """A client that names the chart's values files: `ci/*.yaml` only."""
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(),
            root_uri=chart.as_uri(),
            initialization_options={"valuesFiles": ["ci/*.yaml"]},
        )
    )
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_the_values_files_the_user_names(named_values_client, chart):
    client = named_values_client
    (chart / "app/values-prod.yaml").write_text("prodOnly: 1\n")
    (chart / "app/ci").mkdir()
    (chart / "app/ci/lint-values.yaml").write_text("# Set for the linter.\nlintOnly: true\n")
    template = chart / "app/templates/deployment.yaml"
    uri = open_file(client, template)
    items = await complete(client, uri, "x: {{ .Values.", 2)
    assert "prodOnly" not in items
    assert items["lintOnly"].detail == "app/ci/lint-values.yaml:2"
    shown = await documentation(client, items["lintOnly"])
    assert "Set for the linter." in shown
    # Changed in the editor's settings, without a restart.
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"tether": {"valuesFiles": ["values*.yaml"]}})
    )
    items = await complete(client, uri, "x: {{ .Values.", 3)
    assert "prodOnly" in items and "lintOnly" not in items


def configuring_capabilities():
    """A client that answers `workspace/configuration` (the pull model)."""
    pulling = capabilities()
    pulling.workspace.configuration = True
    return pulling


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[TETHER, "server"]))
async def configuring_client(lsp_client: LanguageClient, chart):
    """A client that names `ci/*.yaml` only when the server asks for its settings:
    nothing in `initializationOptions`."""
    lsp_client.set_configuration({"valuesFiles": ["ci/*.yaml"]}, section="tether")
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=configuring_capabilities(), root_uri=chart.as_uri())
    )
    yield
    await lsp_client.shutdown_session()


async def completed_until(client, uri, text, version, wanted):
    """Completes until `wanted(items)` holds: the client answers the server's
    `workspace/configuration` beside the requests of the test."""
    for attempt in range(100):
        items = await complete(client, uri, text, version + attempt)
        if wanted(items):
            return items
        await asyncio.sleep(0.05)
    raise AssertionError(f"never completed as wanted: {sorted(items)}")


@pytest.mark.asyncio
async def test_the_values_files_the_client_gives_when_asked(configuring_client, chart):
    """The server asks a client that answers `workspace/configuration` for its
    `tether` settings, and asks again when told they changed (`settings` null)."""
    client = configuring_client
    (chart / "app/values-prod.yaml").write_text("prodOnly: 1\n")
    (chart / "app/ci").mkdir()
    (chart / "app/ci/lint-values.yaml").write_text("lintOnly: true\n")
    uri = open_file(client, chart / "app/templates/deployment.yaml")
    items = await completed_until(client, uri, "x: {{ .Values.", 2, lambda i: "lintOnly" in i)
    assert "prodOnly" not in items
    client.set_configuration({"valuesFiles": ["values*.yaml"]}, section="tether")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    items = await completed_until(client, uri, "x: {{ .Values.", 200, lambda i: "prodOnly" in i)
    assert "lintOnly" not in items
