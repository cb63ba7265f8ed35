"""Configuration changes are picked up without a restart: `tether.toml` and
`.yamllint` seen by the client's file watcher or saved, `Chart.yaml` edited in a
buffer."""

import pytest
from lsprotocol import types
from conftest import diagnostics_until, open_file, replace_all, rules


def changed(client, path, kind=types.FileChangeType.Changed):
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=path.as_uri(), type=kind)]
        )
    )


@pytest.mark.asyncio
async def test_tether_toml_and_yamllint_changes_apply_at_once(client, chart):
    template = chart / "app/templates/deployment.yaml"
    uri = open_file(client, template)
    await diagnostics_until(client, uri, lambda d: rules(d) == ["detached-comment"])
    (chart / "tether.toml").write_text('[rules]\ndetached-comment = "off"\n')
    changed(client, chart / "tether.toml")
    await diagnostics_until(client, uri, lambda d: len(d) == 0)
    # yamllint's `comments` rule maps onto comment-starting-space.
    text = template.read_text().replace("# The port of", "#The port of")
    replace_all(client, uri, 2, text)
    await diagnostics_until(client, uri, lambda d: rules(d) == ["comment-starting-space"])
    (chart / ".yamllint").write_text("rules:\n  comments: disable\n")
    changed(client, chart / ".yamllint", types.FileChangeType.Created)
    await diagnostics_until(client, uri, lambda d: len(d) == 0)


@pytest.mark.asyncio
async def test_a_dependency_added_in_chart_yaml_changes_the_findings(client, chart):
    template_uri = open_file(client, chart / "app/templates/deployment.yaml")
    values = chart / "app/values.yaml"
    values_uri = open_file(client, values)
    replace_all(client, values_uri, 2, values.read_text().replace("replicas:", "replicaCount:"))
    await diagnostics_until(client, template_uri, lambda d: "undefined-value" in rules(d))
    # A dependency keyed `replicas` owns the parent's `replicas` values.
    manifest = chart / "app/Chart.yaml"
    manifest_uri = open_file(client, manifest)
    dependency = "  - name: replicas\n    version: 1.0.0\n    repository: file://../replicas\n"
    replace_all(client, manifest_uri, 2, manifest.read_text() + dependency)
    await diagnostics_until(client, template_uri, lambda d: rules(d) == ["detached-comment"])


@pytest.mark.asyncio
async def test_a_template_changed_on_disk_updates_its_values_findings(client, chart):
    """`git checkout` or `make update` writes a template no editor has open: the
    watcher's event is enough for `unused-value` in the open values file."""
    values = chart / "app/values.yaml"
    values_uri = open_file(client, values)
    replace_all(client, values_uri, 2, values.read_text() + "# Read by a template to come.\nextra: 1\n")
    await diagnostics_until(client, values_uri, lambda d: "unused-value" in rules(d))
    template = chart / "app/templates/extra.yaml"
    template.write_text("data:\n  extra: {{ .Values.extra }}\n")
    changed(client, template, types.FileChangeType.Created)
    await diagnostics_until(client, values_uri, lambda d: "unused-value" not in rules(d))


@pytest.mark.asyncio
async def test_a_saved_tether_toml_applies_for_a_client_that_cannot_watch(client, chart):
    """The client registers no file watcher (Neovim 0.7 cannot) and says nothing of
    the save: the server's own watch sees `tether.toml` change, and a template
    written on disk."""
    template = chart / "app/templates/deployment.yaml"
    uri = open_file(client, template)
    await diagnostics_until(client, uri, lambda d: rules(d) == ["detached-comment"])
    (chart / "tether.toml").write_text('[rules]\ndetached-comment = "off"\n')
    await diagnostics_until(client, uri, lambda d: len(d) == 0)
    values = chart / "app/values.yaml"
    values_uri = open_file(client, values)
    replace_all(client, values_uri, 2, values.read_text() + "# Read by a template to come.\nextra: 1\n")
    await diagnostics_until(client, values_uri, lambda d: "unused-value" in rules(d))
    (chart / "app/templates/extra.yaml").write_text("data:\n  extra: {{ .Values.extra }}\n")
    await diagnostics_until(client, values_uri, lambda d: "unused-value" not in rules(d))
