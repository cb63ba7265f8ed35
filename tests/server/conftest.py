"""The language server's end-to-end tests: `tether server` over stdio, driven by
pytest-lsp's client. `TETHER` names the binary (tests/it/server.rs sets it to the
one cargo built); each test serves a copy of tests/fixtures/server, a chart with a
library dependency, outside any git repository."""

import asyncio
import os
import pathlib
import shutil

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "server"
TETHER = os.environ.get("TETHER", "tether")


@pytest.fixture
def chart(tmp_path):
    """A copy of the fixture: the folder holding `app/` and `common/`."""
    copy = tmp_path / "charts"
    shutil.copytree(FIXTURE, copy)
    return copy.resolve()


def capabilities(pull=False):
    text_document = types.TextDocumentClientCapabilities(
        code_action=types.CodeActionClientCapabilities(
            code_action_literal_support=types.ClientCodeActionLiteralOptions(
                code_action_kind=types.ClientCodeActionKindOptions(
                    value_set=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll]
                )
            )
        ),
        diagnostic=types.DiagnosticClientCapabilities() if pull else None,
        completion=types.CompletionClientCapabilities(
            completion_item=types.ClientCompletionItemOptions(
                documentation_format=[types.MarkupKind.Markdown],
                resolve_support=types.ClientCompletionItemResolveOptions(
                    properties=["documentation"]
                ),
            )
        ),
    )
    workspace = types.WorkspaceClientCapabilities(
        diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
        if pull
        else None
    )
    return types.ClientCapabilities(text_document=text_document, workspace=workspace)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[TETHER, "server"]))
async def client(lsp_client: LanguageClient, chart):
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(),
            root_uri=chart.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=chart.as_uri(), name="charts")],
        )
    )
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[TETHER, "server"]))
async def pull_client(lsp_client: LanguageClient, chart):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=capabilities(pull=True), root_uri=chart.as_uri())
    )
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[TETHER, "server"]))
async def bare_client(lsp_client: LanguageClient):
    """A client that names no workspace folder."""
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities()))
    yield
    await lsp_client.shutdown_session()


def open_file(client, path, uri=None):
    """Opens the file at `path` as the editor would (under `uri`, if given);
    returns its URI."""
    uri = uri or path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="yaml", version=1, text=path.read_text()
            )
        )
    )
    return uri


def replace_all(client, uri, version, text):
    """Replaces the whole buffer (a change without a range)."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def diagnostics_until(client, uri, accept, timeout=10.0):
    """Waits until the diagnostics published for `uri` satisfy `accept`."""

    async def wait():
        while True:
            found = client.diagnostics.get(uri)
            if found is not None and accept(found):
                return found
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    return await asyncio.wait_for(wait(), timeout)


def rules(diagnostics):
    return sorted(str(d.code) for d in diagnostics)
