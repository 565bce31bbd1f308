"""The Files page: upload into a project, watch indexing, delete and re-index.

Works without JavaScript: forms post and redirect back with a message, and the progress
bars show the stored progress on each load. ``static/js/files.js`` adds drag and drop and
live progress from the ``indexing.progress`` events on ``/ws/events/``."""

from __future__ import annotations

import mimetypes
import uuid
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.models import User
from apps.core.request_user import current_user
from apps.projects.models import Project
from apps.projects.selectors import project_get, project_list
from apps.projects.services import project_chosen_or_personal, project_ensure_personal

from .explain import explain_document
from .extract.zipguard import format_bytes
from .forms import FolderSourceForm, UploadForm
from .models import Source
from .selectors import (
    document_chunk_index,
    document_chunks,
    document_get,
    document_list,
    source_get,
    source_list,
)
from .services import (
    document_delete,
    document_reindex,
    documents_upload,
    folder_roots,
    source_create_folder,
    source_delete,
    source_refresh,
)
from .services.files import UnsafePath, document_file_open

DOCUMENTS_SHOWN = 200
PASSAGES_PER_PAGE = 50


def _project(user: User, project_id: Any) -> Project:
    return project_chosen_or_personal(user=user, project_id=project_id)


def _back_to_posted_project(request: HttpRequest, user: User) -> HttpResponse:
    """After a form that did not validate: back to the project it named (unchecked: it is
    only where to go, and the page scopes it), or to the Personal one."""
    return _back(request.POST.get("project") or project_ensure_personal(user=user))


def _back(project: Project | uuid.UUID | str) -> HttpResponse:
    project_id = project.pk if isinstance(project, Project) else project
    return redirect(f"{reverse('files:home')}?project={project_id}")


def _source_context(user: User, source: Source) -> dict[str, Any]:
    documents = document_list(user=user, source=source)
    return {
        "source": source,
        "documents": [
            (document, explain_document(document)) for document in documents[:DOCUMENTS_SHOWN]
        ],
        "more_documents": max(0, documents.count() - DOCUMENTS_SHOWN),
    }


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    user = current_user(request)
    project = _project(user, request.GET.get("project"))
    sources = [
        _source_context(user, source)
        for source in source_list(user=user, project=project).order_by("kind", "name")
    ]
    return render(
        request,
        "files/home.html",
        {
            "nav": "files",
            "project": project,
            "projects": project_list(user=user, include_archived=False),
            "sources": sources,
            "upload_form": UploadForm(initial={"project": project.pk}),
            "folder_form": FolderSourceForm(initial={"project": project.pk}),
            "folders_enabled": bool(folder_roots()),
            "folder_roots": folder_roots(),
            "max_files": settings.CAIRN_UPLOAD_MAX_FILES,
            "max_size": format_bytes(settings.CAIRN_UPLOAD_MAX_BYTES),
        },
    )


@require_GET
def source_card(request: HttpRequest, source_id: uuid.UUID) -> HttpResponse:
    """One source's card, for the page to refresh it live."""
    user = current_user(request)
    source = source_get(user=user, source_id=source_id)
    return render(request, "files/_source.html", _source_context(user, source))


@require_POST
def upload(request: HttpRequest) -> HttpResponse:
    user = current_user(request)
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, "Choose one or more files to upload.")
        return _back_to_posted_project(request, user)
    project = project_get(user=user, project_id=form.cleaned_data["project"])
    try:
        results = documents_upload(project=project, files=form.cleaned_data["files"])
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return _back(project)
    duplicates = [r.document.path for r in results if r.duplicate]
    queued = len(results) - len(duplicates)
    if queued:
        messages.success(
            request,
            f"{queued} file{'s' if queued != 1 else ''} uploaded; indexing runs in the background.",
        )
    if duplicates:
        messages.info(request, "Already uploaded, not stored again: " + ", ".join(duplicates))
    return _back(project)


@require_POST
def folder_create(request: HttpRequest) -> HttpResponse:
    user = current_user(request)
    form = FolderSourceForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Give the folder's path.")
        return _back_to_posted_project(request, user)
    data = dict(form.cleaned_data)
    project = project_get(user=user, project_id=data.pop("project"))
    try:
        source = source_create_folder(user=user, project=project, **data)
    except (ValidationError, PermissionDenied) as error:
        text = " ".join(error.messages) if isinstance(error, ValidationError) else str(error)
        messages.error(request, text)
        return _back(project)
    messages.success(request, f"Scanning {source.root_path} in the background.")
    return _back(project)


@require_POST
def source_refresh_view(request: HttpRequest, source_id: uuid.UUID) -> HttpResponse:
    user = current_user(request)
    source = source_get(user=user, source_id=source_id)
    try:
        source_refresh(source=source, user=user)
    except (ValidationError, PermissionDenied) as error:
        messages.error(request, " ".join(getattr(error, "messages", [str(error)])))
        return _back(source.project_id)
    messages.success(request, f"{source.name}: indexing again in the background.")
    return _back(source.project_id)


@require_POST
def source_delete_view(request: HttpRequest, source_id: uuid.UUID) -> HttpResponse:
    source = source_get(user=current_user(request), source_id=source_id)
    project_id = source.project_id
    source_delete(source=source)
    messages.success(request, f"{source.name} and its documents were deleted.")
    return _back(project_id)


@require_GET
def document_detail(request: HttpRequest, document_id: uuid.UUID) -> HttpResponse:
    """The document and a page of its passages: ``?page=N``, or ``?chunk=<id>`` for the
    page holding that passage (where a cited passage's link leads)."""
    user = current_user(request)
    document = document_get(user=user, document_id=document_id)
    page_number: int | str = request.GET.get("page", 1)
    if "chunk" in request.GET:
        index = document_chunk_index(user=user, document=document, chunk_id=request.GET["chunk"])
        if index is not None:
            page_number = index // PASSAGES_PER_PAGE + 1
    passages = Paginator(document_chunks(user=user, document=document), PASSAGES_PER_PAGE)
    return render(
        request,
        "files/document.html",
        {
            "nav": "files",
            "document": document,
            "explanation": explain_document(document),
            "passages": passages.get_page(page_number),
        },
    )


@require_POST
def document_reindex_view(request: HttpRequest, document_id: uuid.UUID) -> HttpResponse:
    document = document_get(user=current_user(request), document_id=document_id)
    try:
        document_reindex(document=document)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return _back(document.source.project_id)
    messages.success(request, f"{document.name}: indexing again in the background.")
    return _back(document.source.project_id)


@require_POST
def document_delete_view(request: HttpRequest, document_id: uuid.UUID) -> HttpResponse:
    document = document_get(user=current_user(request), document_id=document_id)
    project_id = document.source.project_id
    document_delete(document=document)
    messages.success(request, f"{document.name} was deleted.")
    return _back(project_id)


# Kinds a browser shows without running anything of the file's own, inside the sandbox
# below; everything else (HTML, SVG, XML, JavaScript, office files…) is only ever
# downloaded. PDFs too: a PDF viewer runs the file's scripts and forms, and Chromium
# refuses to show a sandboxed PDF at all, so a PDF cannot be both inline and sandboxed.
INLINE_CONTENT_TYPES = {
    "image/gif",
    "image/jpeg",
    "image/png",
    "image/webp",
    "text/plain",
}

ORIGINAL_POLICY = "sandbox; default-src 'none'; img-src 'self'"


@require_GET
def document_original(request: HttpRequest, document_id: uuid.UUID) -> FileResponse:
    """The uploaded (or folder) file itself, for its owner only: another user's document
    and a missing file answer the same 404. ``?download=1`` always downloads."""
    document = document_get(user=current_user(request), document_id=document_id)
    try:
        handle = document_file_open(document)
    except (OSError, UnsafePath) as error:
        raise Http404("No such file.") from error
    content_type = mimetypes.guess_type(document.name)[0] or "application/octet-stream"
    inline = content_type in INLINE_CONTENT_TYPES and not request.GET.get("download")
    response = FileResponse(
        handle,
        as_attachment=not inline,
        filename=document.name,
        content_type=content_type if inline else "application/octet-stream",
    )
    response["X-Content-Type-Options"] = "nosniff"
    # Served from the site's own origin: even a mislabelled file gets no script, no
    # cookies of the site and no way to reach its pages, whether it is shown or saved.
    response["Content-Security-Policy"] = ORIGINAL_POLICY
    return response
