"""The server answers for the files of its workspace only: a document named
outside it (by `..`, `%2e%2e`, an absolute path, or a link that leaves it) gets
an empty answer, and nothing of the file is read; a file `check --fix` would refuse
to write gets no edit."""

import shutil
import subprocess

import pytest
from lsprotocol import types
from conftest import FIXTURE, TETHER, diagnostics_until, open_file, rules


def document(uri):
    return types.TextDocumentIdentifier(uri=uri)


async def symbols(client, uri):
    return await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=document(uri))
    )


async def hover(client, uri, line, character):
    return await client.text_document_hover_async(
        types.HoverParams(
            text_document=document(uri),
            position=types.Position(line=line, character=character),
        )
    )


async def definition(client, uri, line, character):
    return await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=document(uri),
            position=types.Position(line=line, character=character),
        )
    )


async def actions(client, uri, line):
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=document(uri),
            range=types.Range(
                start=types.Position(line=line, character=0),
                end=types.Position(line=line, character=0),
            ),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )


def at(text, needle, shift=0):
    offset = text.index(needle) + shift
    line = text.count("\n", 0, offset)
    return line, offset - (text.rfind("\n", 0, offset) + 1)


@pytest.mark.asyncio
async def test_a_file_outside_the_workspace_gets_no_answer(client, chart):
    secret = chart.parent / "secret.yaml"
    secret.write_text("#The password.\npassword: hunter2\n")
    outside = chart.parent / "outside"
    outside.mkdir()
    shutil.copy(secret, outside / "secret.yaml")
    (chart / "linked").symlink_to(outside, target_is_directory=True)
    for uri in [
        chart.as_uri() + "/../secret.yaml",
        chart.as_uri() + "/%2e%2e/secret.yaml",
        chart.as_uri() + "/app/%2E%2E/%2e%2e/%2e%2e/secret.yaml",
        secret.as_uri(),
        (chart / "linked/secret.yaml").as_uri(),
    ]:
        assert await symbols(client, uri) is None, uri
        assert await hover(client, uri, 1, 2) is None, uri
        assert await actions(client, uri, 0) is None, uri
    # A `..` that stays inside is answered.
    inside = chart.as_uri() + "/app/../app/values.yaml"
    assert [s.name for s in await symbols(client, inside)][:2] == ["nameOverride", "replicas"]


@pytest.mark.asyncio
async def test_a_chart_outside_shows_none_of_its_lines(client, chart):
    other = chart.parent / "other"
    shutil.copytree(FIXTURE, other)
    (chart / "linked").symlink_to(other, target_is_directory=True)
    text = (other / "app/templates/deployment.yaml").read_text()
    line, character = at(text, ".Values.replicas", 9)
    inside = chart / "app/templates/deployment.yaml"
    inside_uri = open_file(client, inside)
    for path in [other / "app/templates/deployment.yaml", chart / "linked/app/templates/deployment.yaml"]:
        uri = open_file(client, path, uri=path.as_uri())
        assert await hover(client, uri, line, character) is None, uri
        assert await definition(client, uri, line, character) is None, uri
    # The chart inside is answered, and nothing was published for the files outside.
    shown = await hover(client, inside_uri, line, character)
    assert "replicas: 2" in shown.contents.value
    await diagnostics_until(client, inside_uri, lambda d: rules(d) == ["detached-comment"])
    assert set(client.diagnostics) == {inside_uri}


@pytest.mark.asyncio
async def test_no_edit_of_a_file_check_fix_refuses_to_write(client, chart):
    repo = chart / "repo"
    (repo / ".git").mkdir(parents=True)
    elsewhere = chart / "elsewhere"
    elsewhere.mkdir()
    values = elsewhere / "values.yaml"
    values.write_text("#Replicas.\nreplicas: 1\n")
    (repo / "linked").symlink_to(elsewhere, target_is_directory=True)
    # `check --fix` in the repository refuses the file reached through the link
    # (where no `tether.toml` above it roots the check higher).
    (chart / "tether.toml").unlink()
    run = subprocess.run(
        [TETHER, "check", "--fix", "linked/values.yaml"], cwd=repo, capture_output=True, text=True
    )
    assert "reached through a link that leaves" in run.stderr, run.stderr
    assert values.read_text() == "#Replicas.\nreplicas: 1\n"
    linked = open_file(client, repo / "linked/values.yaml")
    # Inside the workspace, so checked; but no edit is offered.
    await diagnostics_until(client, linked, lambda d: rules(d) == ["comment-starting-space"])
    assert await actions(client, linked, 0) is None
    # Named where it is, it is the workspace's and not a link's: its fixes are offered.
    direct = values.as_uri()
    assert [a.title for a in await actions(client, direct, 0)][0].startswith(
        "Fix comment-starting-space"
    )
    # Nor a file that is a link itself, nor a read-only one.
    (chart / "alias.yaml").symlink_to(values)
    assert await actions(client, (chart / "alias.yaml").as_uri(), 0) is None
    values.chmod(0o444)
    assert await actions(client, direct, 0) is None


@pytest.mark.asyncio
async def test_without_folders_the_workspace_is_the_first_document_s_repository(
    bare_client, chart
):
    (chart / ".git").mkdir()
    secret = chart.parent / "secret.yaml"
    secret.write_text("password: hunter2\n")
    values = chart / "app/values.yaml"
    open_file(bare_client, values)
    assert await symbols(bare_client, secret.as_uri()) is None
    library = (chart / "common/templates/_names.tpl").as_uri()
    assert await symbols(bare_client, library) is not None
