"""Code actions: a finding's fix, the file's fix-all, and silencing a finding."""

import pytest
from lsprotocol import types
from conftest import FIXTURE, diagnostics_until, open_file, replace_all, rules


async def actions_at(client, uri, line, only=None):
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=line, character=0),
                end=types.Position(line=line, character=0),
            ),
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
    )


@pytest.mark.asyncio
async def test_a_fix_and_the_fix_all_are_the_fixes_of_check(client, chart):
    values = chart / "app/values.yaml"
    uri = open_file(client, values)
    text = values.read_text().replace("# Number of pods", "#Number of pods").replace(
        "# The image's tag.", "#The image's tag."
    )
    replace_all(client, uri, 2, text)
    await diagnostics_until(
        client, uri, lambda d: rules(d) == ["comment-starting-space", "comment-starting-space"]
    )
    actions = await actions_at(client, uri, 2)
    titles = [action.title for action in actions]
    assert titles[0].startswith("Fix comment-starting-space")
    edits = actions[0].edit.changes[uri]
    assert [(e.range.start.line, e.range.start.character, e.new_text) for e in edits] == [
        (2, 1, " ")
    ]
    assert "Silence comment-starting-space on this line" in titles
    fix_all = [a for a in actions if a.kind == types.CodeActionKind.SourceFixAll]
    assert len(fix_all) == 1
    assert fix_all[0].edit.changes[uri][0].new_text == values.read_text()
    only = await actions_at(client, uri, 2, only=[types.CodeActionKind.SourceFixAll])
    assert [a.kind for a in only] == [types.CodeActionKind.SourceFixAll]
    # The edits are the client's to apply: the file on disk is as it was.
    assert values.read_text() == (FIXTURE / "app/values.yaml").read_text()


@pytest.mark.asyncio
async def test_silencing_writes_the_template_comment_and_the_finding_goes(client, chart):
    template = chart / "app/templates/deployment.yaml"
    uri = open_file(client, template)
    await diagnostics_until(client, uri, lambda d: rules(d) == ["detached-comment"])
    actions = await actions_at(client, uri, 14)
    silence = [a for a in actions if a.title.startswith("Silence detached-comment")]
    (edit,) = silence[0].edit.changes[uri]
    assert edit.new_text == "          {{- /* tether: ignore[detached-comment] reason */}}\n"
    assert (edit.range.start.line, edit.range.start.character) == (14, 0)
    lines = template.read_text().splitlines(keepends=True)
    lines.insert(14, edit.new_text)
    replace_all(client, uri, 2, "".join(lines))
    await diagnostics_until(client, uri, lambda d: len(d) == 0)
    assert template.read_text() == (FIXTURE / "app/templates/deployment.yaml").read_text()


@pytest.mark.asyncio
async def test_silencing_a_crlf_file_inserts_a_crlf_line(client, chart):
    values = chart / "app/values.yaml"
    uri = open_file(client, values)
    text = values.read_text().replace("# Number of pods", "#Number of pods").replace("\n", "\r\n")
    replace_all(client, uri, 2, text)
    await diagnostics_until(client, uri, lambda d: rules(d) == ["comment-starting-space"])
    actions = await actions_at(client, uri, 2)
    silence = [a for a in actions if a.title.startswith("Silence comment-starting-space")]
    (edit,) = silence[0].edit.changes[uri]
    assert edit.new_text == "# tether: ignore[comment-starting-space] reason\r\n"


@pytest.mark.asyncio
async def test_an_unsafe_fix_is_offered_said_and_left_out_of_the_fix_all(client, chart):
    # A chart may embed `files/` with `.Files.Get`: every fix there is unsafe.
    embedded = chart / "app/files/config.yaml"
    embedded.parent.mkdir()
    embedded.write_text("level: debug\n#Debug until the rollout ends.\n")
    uri = open_file(client, embedded)
    await diagnostics_until(client, uri, lambda d: rules(d) == ["comment-starting-space"])
    actions = await actions_at(client, uri, 1)
    fix = [a for a in actions if a.title.startswith("Fix comment-starting-space")]
    assert fix[0].title.startswith("Fix comment-starting-space (unsafe:")
    assert not fix[0].is_preferred
    assert [a for a in actions if a.kind == types.CodeActionKind.SourceFixAll] == []
