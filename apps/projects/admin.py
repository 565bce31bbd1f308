from django.contrib import admin

from apps.core.admin_scoping import OwnedModelAdmin

from .models import Project


@admin.register(Project)
class ProjectAdmin(OwnedModelAdmin):
    owner_field = "owner"
    list_display = ["name", "slug", "archived", "updated_at"]
    list_filter = ["archived"]
    search_fields = ["name", "description"]
    readonly_fields = ["slug", "created_at", "updated_at"]
    fields = ["name", "slug", "description", "archived", "created_at", "updated_at"]

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
        from .services import project_create, project_update

        if change:
            from .models import Project

            project_update(
                project=Project.objects.get(pk=obj.pk),
                name=obj.name,
                description=obj.description,
                archived=obj.archived,
            )
        else:
            created = project_create(owner=request.user, name=obj.name, description=obj.description)
            obj.pk, obj.slug = created.pk, created.slug
