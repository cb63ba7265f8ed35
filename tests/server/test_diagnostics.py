"""Diagnostics as you type, from the buffers: a file's own findings, and those of
the files of its chart that depend on it."""

import asyncio

import pytest
from lsprotocol import types
from conftest import diagnostics_until, open_file, replace_all, rules


@pytest.mark.asyncio
async def test_a_detached_comment_appears_and_goes(client, chart):
    template = chart / "app/templates/deployment.yaml"
    uri = open_file(client, template)
    found = await diagnostics_until(client, uri, lambda d: len(d) > 0)
    assert rules(found) == ["detached-comment"]
    assert found[0].range.start.line == 14
    # The comment moved below the block, above the key it documents.
    text = template.read_text().replace(
        "          # The port of the probe below.\n          {{- end }}\n",
        "          {{- end }}\n          # The port of the probe below.\n",
    )
    replace_all(client, uri, 2, text)
    await diagnostics_until(client, uri, lambda d: len(d) == 0)


@pytest.mark.asyncio
async def test_renaming_a_key_makes_the_template_read_undefined(client, chart):
    template_uri = open_file(client, chart / "app/templates/deployment.yaml")
    values = chart / "app/values.yaml"
    values_uri = open_file(client, values)
    await diagnostics_until(client, template_uri, lambda d: rules(d) == ["detached-comment"])
    # Renamed in the buffer only: the file on disk still has `replicas`.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=values_uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=3, character=0),
                        end=types.Position(line=3, character=8),
                    ),
                    text="replicaCount",
                )
            ],
        )
    )
    found = await diagnostics_until(client, template_uri, lambda d: "undefined-value" in rules(d))
    undefined = [d for d in found if d.code == "undefined-value"]
    assert "replicas" in undefined[0].message
    assert undefined[0].range.start.line == 5
    # The renamed key is now unused in values.yaml.
    await diagnostics_until(client, values_uri, lambda d: "unused-value" in rules(d))


@pytest.mark.asyncio
async def test_diagnostics_are_pulled_when_the_client_pulls(pull_client, chart):
    uri = open_file(pull_client, chart / "app/templates/deployment.yaml")
    report = await pull_client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert rules(report.items) == ["detached-comment"]
    # A change of values.yaml changes the template's findings: the client is told
    # to pull again, and pulls the undefined read.
    values = chart / "app/values.yaml"
    values_uri = open_file(pull_client, values)
    before = pull_client.diagnostic_refresh_count
    replace_all(pull_client, values_uri, 2, values.read_text().replace("replicas:", "replicaCount:"))
    for _ in range(100):
        if pull_client.diagnostic_refresh_count > before:
            break
        await asyncio.sleep(0.02)
    assert pull_client.diagnostic_refresh_count > before
    report = await pull_client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert rules(report.items) == ["detached-comment", "undefined-value"]
