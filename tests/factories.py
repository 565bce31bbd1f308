from __future__ import annotations

import factory
from django.utils.text import slugify

from apps.accounts.models import User
from apps.projects.models import Project

DEFAULT_PASSWORD = "correct horse battery staple"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    email = factory.Sequence(lambda n: f"user{n}@example.com")
    display_name = factory.Faker("first_name")
    password = factory.PostGenerationMethodCall("set_password", DEFAULT_PASSWORD)

    @factory.post_generation
    def save_password(self, create: bool, extracted: object, **kwargs: object) -> None:
        if create:
            self.save()


class ProjectFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Project

    owner = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"Project {n}")
    slug = factory.LazyAttribute(lambda project: slugify(project.name))
